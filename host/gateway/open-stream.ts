/**
 * The start of a streamed chat call, shared by /v1/chat/completions and /v1/responses: the
 * host's stream over the upstream's chunks, its first effective chunk awaited before any
 * header is sent (so a reject, a short-circuit failure or an unreachable upstream is still a
 * plain HTTP error), then the event-stream headers.
 */
import type { FastifyReply } from "fastify";
import type { ServerResponse } from "node:http";
import type { ChatRequest } from "../boundary/chat.js";
import type { EmittedChunk } from "../boundary/stream.js";
import type { ChatStream } from "../boundary/chat-stream.js";
import type { CallContext } from "../engine/call-types.js";
import type { Host } from "../host.js";
import { chunksCall, type UpstreamFacts } from "./chat-upstream.js";
import { asSluiceError, replyError } from "./openai-error.js";
import type { Upstream } from "./upstream.js";
import type { WireChatBody } from "./wire.js";

export interface OpenedStream {
  stream: ChatStream;
  it: AsyncIterator<EmittedChunk>;
  /** The first effective chunk (or the end). */
  step: IteratorResult<EmittedChunk>;
  res: ServerResponse;
}

/** The opened stream, or the reply already sent when the call failed before its first chunk. */
export async function openStream(host: Host, upstream: Upstream, ctx: CallContext, body: WireChatBody, view: ChatRequest, facts: UpstreamFacts, reply: FastifyReply): Promise<OpenedStream | { replied: FastifyReply }> {
  const chunks = chunksCall(upstream, body, view, facts);
  const stream = host.chatStream(ctx, view, (effective, op) => chunks(effective, op.signal));
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
