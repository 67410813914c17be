/**
 * POST /v1/chat/completions through the host's chat boundary. Without `stream` it is one
 * host.chat call; with it, host.chatStream relayed as server-sent events. A stream's
 * headers wait for its first effective chunk, so a reject, a short-circuit failure or an
 * unreachable upstream still answers with a plain HTTP error the client can read.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { ServerResponse } from "node:http";
import { SluiceError } from "../errors/sluice-error.js";
import type { CallContext } from "../boundary/types.js";
import type { ChatRequest } from "../boundary/chat.js";
import type { EmittedChunk, StreamChunk } from "../boundary/stream.js";
import type { Host } from "../host.js";
import { callerOf } from "./auth.js";
import { readChatBody, toChatRequest, toUpstreamBody } from "./chat-request.js";
import { completionChunk, deltaOf, fromChunk, fromCompletion, metaOf, ownMeta, toChunk, toCompletion, usageChunk } from "./chat-response.js";
import { clientSignal } from "./client-signal.js";
import { asSluiceError, replyError, toOpenAIError } from "./openai-error.js";
import { sanitiseUpstreamError } from "./upstream-error.js";
import { sseEvent } from "./sse.js";
import type { Upstream } from "./upstream.js";
import type { CompletionMeta, WireChatBody, WireUsage } from "./wire.js";

export function chatCompletions(host: Host, upstream: Upstream) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const caller = callerOf(request);
    const body = readChatBody(request.body);
    const view = toChatRequest(body);
    // actor_id is the calling key, so hooks can meter and govern per key (seed 004's api_key_id).
    const ctx: CallContext = { spaceId: caller.spaceId, actorId: caller.id, purpose: "action", signal: clientSignal(reply.raw) };
    return body.stream === true ? streamed(host, upstream, ctx, body, view, reply) : plain(host, upstream, ctx, body, view, reply);
  };
}

async function plain(host: Host, upstream: Upstream, ctx: CallContext, body: WireChatBody, view: ChatRequest, reply: FastifyReply): Promise<unknown> {
  let meta: CompletionMeta | undefined;
  const r = await host.chat(ctx, view, async (effective, op) => {
    const { stream_options: _so, ...payload } = toUpstreamBody(body, view, effective);
    const json = await upstream.json("/chat/completions", { ...payload, stream: false }, op.signal);
    meta = { ...metaOf(json, body.model), ...(typeof json.usage === "object" && json.usage ? { usage: json.usage as WireUsage } : {}) };
    return fromCompletion(json);
  });
  reply.header("x-sluice-operation-id", r.facts.operationId);
  if (!r.ok) return replyError(reply, r.error);
  return toCompletion(meta ?? ownMeta(body.model), r.output);
}

async function streamed(host: Host, upstream: Upstream, ctx: CallContext, body: WireChatBody, view: ChatRequest, reply: FastifyReply): Promise<unknown> {
  let meta: CompletionMeta | undefined;
  let operationId: string | undefined;
  async function* chunks(effective: ChatRequest, signal: AbortSignal): AsyncGenerator<StreamChunk> {
    // Usage is always asked for, so the result (and metering) has the real counts; the client gets it only if it asked.
    const payload = { ...toUpstreamBody(body, view, effective), stream: true, stream_options: { ...(body.stream_options ?? {}), include_usage: true } };
    let finished = false;
    for await (const data of upstream.events("/chat/completions", payload, signal)) {
      if (data.trim() === "[DONE]") return;
      let json: Record<string, any>;
      try { json = JSON.parse(data); } catch { throw new SluiceError("UPSTREAM_FAILED", "the upstream sent a stream event that is not JSON"); }
      if (json?.error) {
        const error = sanitiseUpstreamError(200, json.error);
        throw new SluiceError("UPSTREAM_FAILED", `the upstream's stream failed${error.code ? ` (${error.code})` : ""}: ${error.message ?? "unknown error"}`, { upstream: error });
      }
      meta ??= metaOf(json, body.model);
      if (typeof json.usage === "object" && json.usage) meta.usage = json.usage;
      // A plain JSON completion to a stream request (some servers ignore `stream`): relayed as a one-chunk stream.
      const chunk = json.object === "chat.completion" ? completionChunk(json) : fromChunk(json);
      if (chunk.finish_reason) finished = true;
      yield chunk;
    }
    // Neither a finish_reason nor [DONE]: the upstream stopped mid-answer; never relayed as a clean stop.
    if (!finished) throw new SluiceError("UPSTREAM_FAILED", "the upstream's stream ended without a finish_reason or [DONE]: the answer is incomplete");
  }
  const stream = host.chatStream(ctx, view, (effective, op) => { operationId = op.operationId; return chunks(effective, op.signal); });
  const it = stream[Symbol.asyncIterator]();
  let step: IteratorResult<EmittedChunk>;
  try {
    step = await it.next();
  } catch (err) {
    return replyError(reply, asSluiceError(err));
  }

  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", connection: "keep-alive", "x-accel-buffering": "no",
    ...(operationId ? { "x-sluice-operation-id": operationId } : {}),
  });
  const m = meta ?? ownMeta(body.model);
  let first = true;
  try {
    for (; !step.done; step = await it.next()) {
      const delta = deltaOf(step.value);
      if (!delta && !first) continue;
      await write(res, toChunk(m, first ? { role: "assistant", content: "", ...delta } : delta!, null));
      first = false;
    }
    const result = await stream.result;
    if (result.ok) {
      await write(res, toChunk(m, {}, result.output.finish_reason));
      if (body.stream_options?.include_usage === true) await write(res, usageChunk(m, result.output.usage));
      await write(res, "[DONE]");
    }
  } catch (err) {
    // Headers are sent: the error travels as an event, which OpenAI clients raise as an APIError.
    const error = asSluiceError(err);
    if (toOpenAIError(error).status >= 500) reply.request.log.error({ err: error, method: "POST", url: reply.request.url }, "stream ended with a server error");
    await write(res, toOpenAIError(error).body);
  } finally {
    res.end();
  }
  return reply;
}

/** Writes one event, waiting for the socket to drain (or close) so a slow client slows the stream instead of filling memory. */
function write(res: ServerResponse, data: unknown): Promise<void> {
  if (res.destroyed || res.writableEnded) return Promise.resolve();
  if (res.write(sseEvent(data))) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => { res.off("drain", done); res.off("close", done); resolve(); };
    res.on("drain", done);
    res.on("close", done);
  });
}
