/**
 * The operation both model APIs wrap: a chat completion from the upstream, whole or as a
 * stream of chunks. What the upstream says beyond what the hooks see (its identity and
 * usage, reasoning text) is kept in `UpstreamFacts` for the route that answers the client.
 */
import { SluiceError } from "../errors/sluice-error.js";
import type { ChatRequest, ChatResponse } from "../boundary/chat.js";
import type { StreamChunk } from "../boundary/stream.js";
import type { OperationContext } from "../engine/call-types.js";
import { toUpstreamBody } from "./chat-request.js";
import { completionChunk, fromChunk, fromCompletion, metaOf } from "./chat-response.js";
import { sanitiseUpstreamError } from "./upstream-error.js";
import type { Upstream } from "./upstream.js";
import type { CompletionMeta, WireChatBody, WireUsage } from "./wire.js";
import { withKeys } from "../objects/with-keys.js";
import type { DroppedItem } from "./responses-request.js";

/** Each item the upstream request leaves out, as an artifact of the operation (kept in its record's facts). */
function recordDropped(facts: UpstreamFacts, op: OperationContext): void {
  for (const d of facts.dropped ?? []) op.artifact({ kind: "gateway.dropped", ...d });
}

export interface UpstreamFacts {
  meta?: CompletionMeta;
  /** What the request's translation left out of the upstream request (/v1/responses), recorded with the operation. */
  dropped?: readonly DroppedItem[];
  /** Reasoning text the upstream sent (`reasoning_content` or `reasoning`, as local servers name it); hooks never see it. */
  reasoning: string;
}

/** A chat-completions upstream's reasoning field of a message or delta. */
function reasoningOf(m: Record<string, any> | undefined): string {
  const r = m?.reasoning_content ?? m?.reasoning;
  return typeof r === "string" ? r : "";
}

/** host.chat's operation: one upstream completion. */
export function completionCall(upstream: Upstream, body: WireChatBody, view: ChatRequest, facts: UpstreamFacts) {
  return async (effective: ChatRequest, op: OperationContext): Promise<ChatResponse> => {
    recordDropped(facts, op);
    const { stream_options: _so, ...payload } = toUpstreamBody(body, view, effective);
    payload.stream = false;
    const json = await upstream.json("/chat/completions", payload, op.signal);
    facts.meta = metaOf(json, body.model);
    if (typeof json.usage === "object" && json.usage) facts.meta.usage = json.usage as WireUsage;
    facts.reasoning = reasoningOf(json.choices?.[0]?.message);
    return fromCompletion(json);
  };
}

/** host.chatStream's operation: the upstream's stream, chunk by chunk. */
export function chunksCall(upstream: Upstream, body: WireChatBody, view: ChatRequest, facts: UpstreamFacts) {
  return async function* (effective: ChatRequest, op: OperationContext): AsyncGenerator<StreamChunk> {
    const signal = op.signal;
    recordDropped(facts, op);
    // Usage is always asked for, so the result (and metering) has the real counts; the client gets it only if it asked.
    const payload = withKeys(toUpstreamBody(body, view, effective), { stream: true, stream_options: withKeys(body.stream_options ?? {}, { include_usage: true }) });
    let finished = false;
    for await (const data of upstream.events("/chat/completions", payload, signal)) {
      if (data === "[DONE]" || data.trim() === "[DONE]") return;
      let json: Record<string, any>;
      try { json = JSON.parse(data); } catch { throw new SluiceError("UPSTREAM_FAILED", "the upstream sent a stream event that is not JSON"); }
      if (json?.error) {
        const error = sanitiseUpstreamError(200, json.error);
        throw new SluiceError("UPSTREAM_FAILED", `the upstream's stream failed${error.code ? ` (${error.code})` : ""}: ${error.message ?? "unknown error"}`, { upstream: error });
      }
      facts.meta ??= metaOf(json, body.model);
      if (typeof json.usage === "object" && json.usage) facts.meta.usage = json.usage;
      // A plain JSON completion to a stream request (some servers ignore `stream`): relayed as a one-chunk stream.
      const whole = json.object === "chat.completion";
      facts.reasoning += reasoningOf(whole ? json.choices?.[0]?.message : json.choices?.[0]?.delta);
      const chunk = whole ? completionChunk(json) : fromChunk(json);
      if (chunk.finish_reason) finished = true;
      yield chunk;
    }
    // Neither a finish_reason nor [DONE]: the upstream stopped mid-answer; never relayed as a clean stop.
    if (!finished) throw new SluiceError("UPSTREAM_FAILED", "the upstream's stream ended without a finish_reason or [DONE]: the answer is incomplete");
  };
}
