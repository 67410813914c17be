/**
 * The start of a streamed chat call, shared by every model route: the host's stream over
 * the upstream's chunks, its first effective chunk awaited before any header is sent (so a
 * reject, a short-circuit failure or an unreachable upstream is still a plain HTTP error in
 * the route's own format), then the event-stream headers.
 */
import type { FastifyReply } from "fastify";
import type { ServerResponse } from "node:http";
import type { ChatRequest } from "../boundary/chat.js";
import type { EmittedChunk, StreamChunk } from "../boundary/stream.js";
import type { ChatStream } from "../boundary/chat-stream.js";
import type { CallContext, OperationContext } from "../engine/call-types.js";
import type { SluiceError } from "../errors/sluice-error.js";
import type { Host } from "../host.js";
import { asSluiceError } from "./gateway-error.js";

export interface OpenedStream {
  stream: ChatStream;
  it: AsyncIterator<EmittedChunk>;
  /** The first effective chunk (or the end). */
  step: IteratorResult<EmittedChunk>;
  res: ServerResponse;
}

/** The opened stream, or the reply already sent when the call failed before its first chunk. */
export async function openStream(
  host: Host, ctx: CallContext, view: ChatRequest, chunks: (effective: ChatRequest, op: OperationContext) => AsyncIterable<StreamChunk>,
  reply: FastifyReply, replyError: (reply: FastifyReply, error: SluiceError) => FastifyReply,
): Promise<OpenedStream | { replied: FastifyReply }> {
  const stream = host.chatStream(ctx, view, chunks);
  const it = stream[Symbol.asyncIterator]();
  let step: IteratorResult<EmittedChunk>;
  try {
    step = await it.next();
  } catch (err) {
    // Refused or failed before its first chunk: still an operation on record, named as a plain call's is.
    if (stream.operationId) reply.header("x-sluice-operation-id", stream.operationId);
    return { replied: replyError(reply, asSluiceError(err)) };
  }
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive", "x-accel-buffering": "no",
    ...(stream.operationId ? { "x-sluice-operation-id": stream.operationId } : {}),
  });
  return { stream, it, step, res };
}
