/**
 * POST /v1/chat/completions through the host's chat boundary. Without `stream` it is one
 * host.chat call; with it, host.chatStream relayed as server-sent events. A stream's
 * headers wait for its first effective chunk, so a reject, a short-circuit failure or an
 * unreachable upstream still answers with a plain HTTP error the client can read.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import type { CallContext } from "../engine/call-types.js";
import type { ChatRequest } from "../boundary/chat.js";
import type { Host } from "../host.js";
import { callerOf } from "./auth.js";
import { readChatBody, toChatRequest } from "./chat-request.js";
import { deltaOf, ownMeta, toChunk, toCompletion, usageChunk } from "./chat-response.js";
import { chunksCall, completionCall, type UpstreamFacts } from "./chat-upstream.js";
import { openStream } from "./open-stream.js";
import { clientSignal } from "./client-signal.js";
import { replyError, streamErrorBody } from "./openai-error.js";
import { sseEvent, writeFrame } from "./sse.js";
import { logUnfinishedRecord } from "./unfinished-record.js";
import type { Upstream } from "./upstream.js";
import type { WireChatBody } from "./wire.js";

export function chatCompletions(host: Host, upstream: Upstream) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const caller = callerOf(request);
    const body = readChatBody(request.body);
    const view = toChatRequest(body);
    // actor_id is the calling key, so hooks can meter and govern per key (docs/api-and-gateway.md, gateway keys).
    const ctx: CallContext = { spaceId: caller.spaceId, actorId: caller.id, purpose: "action", signal: clientSignal(reply.raw) };
    return body.stream === true ? streamed(host, upstream, ctx, body, view, reply) : plain(host, upstream, ctx, body, view, reply);
  };
}

async function plain(host: Host, upstream: Upstream, ctx: CallContext, body: WireChatBody, view: ChatRequest, reply: FastifyReply): Promise<unknown> {
  const facts: UpstreamFacts = { reasoning: "" };
  const r = await host.chat(ctx, view, completionCall(upstream, body, view, facts));
  reply.header("x-sluice-operation-id", r.facts.operationId);
  logUnfinishedRecord(reply, r.facts);
  if (!r.ok) return replyError(reply, r.error);
  return toCompletion(facts.meta ?? ownMeta(body.model), r.output);
}

async function streamed(host: Host, upstream: Upstream, ctx: CallContext, body: WireChatBody, view: ChatRequest, reply: FastifyReply): Promise<unknown> {
  const facts: UpstreamFacts = { reasoning: "" };
  const opened = await openStream(host, ctx, view, chunksCall(upstream, body, view, facts), reply, replyError);
  if ("replied" in opened) return opened.replied;
  const { stream, it, res } = opened;
  let step = opened.step;
  const m = facts.meta ?? ownMeta(body.model);
  let first = true;
  try {
    for (; !step.done; step = await it.next()) {
      const delta = deltaOf(step.value);
      if (!delta && !first) continue;
      await writeFrame(res, sseEvent(toChunk(m, first ? { role: "assistant", content: "", ...delta } : delta!, null)));
      first = false;
    }
    const result = await stream.result;
    logUnfinishedRecord(reply, result.facts);
    if (result.ok) {
      await writeFrame(res, sseEvent(toChunk(m, {}, result.output.finish_reason)));
      if (body.stream_options?.include_usage === true) await writeFrame(res, sseEvent(usageChunk(m, result.output.usage)));
      await writeFrame(res, sseEvent("[DONE]"));
    }
  } catch (err) {
    // Headers are sent: the error travels as an event, which OpenAI clients raise as an APIError.
    await writeFrame(res, sseEvent(streamErrorBody(reply, err)));
  } finally {
    res.end();
  }
  return reply;
}
