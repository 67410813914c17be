/**
 * The operation the Gemini routes wrap: generateContent from a Gemini upstream, whole or as
 * its `alt=sse` stream. Each streamed response is one chunk the host runs its hooks on
 * (text parts as answer text, thought parts as reasoning text, functionCall parts as whole
 * tool calls, the finish reason and usage), kept as it came for the relay (gemini-relay.ts).
 * A stream that ends before a finishReason is a failure, as a Messages stream that ends
 * before message_stop is.
 */
import { SluiceError } from "../errors/sluice-error.js";
import type { ChatRequest, ChatResponse, ToolCallOut } from "../boundary/chat.js";
import type { StreamChunk } from "../boundary/stream.js";
import type { OperationContext } from "../engine/call-types.js";
import { toGeminiUpstream, type GeminiBody, type GeminiView } from "./gemini-request.js";
import { sanitiseUpstreamError } from "./upstream-error.js";
import type { Upstream } from "./upstream.js";

type Json = Record<string, any>;

export interface GeminiFacts {
  /** The upstream's whole answer (without streaming). */
  answer?: Json;
  /** The upstream's streamed responses in order. */
  chunks: Json[];
}

const isText = (p: Json): boolean => typeof p?.text === "string" && p.thought !== true;
const isThought = (p: Json): boolean => typeof p?.text === "string" && p.thought === true;

export function partsOf(json: Json): Json[] {
  const parts = json?.candidates?.[0]?.content?.parts;
  return Array.isArray(parts) ? parts : [];
}

function usageOf(u: Json | undefined): ChatResponse["usage"] {
  const n = (v: unknown) => Math.max(0, Math.trunc(Number(v) || 0));
  return { input_tokens: n(u?.promptTokenCount), output_tokens: n(u?.candidatesTokenCount) + n(u?.thoughtsTokenCount) };
}

function callsOf(parts: Json[], from: number): ToolCallOut[] {
  return parts.filter((p) => typeof p?.functionCall === "object" && p.functionCall !== null).map((p, i) => ({
    id: String(p.functionCall.id ?? `call_${from + i}`), type: "function", function: { name: String(p.functionCall.name ?? ""), arguments: JSON.stringify(p.functionCall.args ?? {}) },
  }));
}

/** Why the upstream refused the prompt itself (it then sends no candidates), or undefined. */
export function blockReasonOf(json: Json): string | undefined {
  const reason = json?.promptFeedback?.blockReason;
  return typeof reason === "string" ? reason : undefined;
}

const FILTERED = new Set(["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"]);

/**
 * Gemini's finishReason (or a prompt's blockReason) as the finish reason the hooks know
 * from chat completions, so a hook reads one vocabulary whatever the protocol
 * (response-cache stores only "stop" answers). The client still gets the upstream's own.
 */
export function chatFinishOf(finish: string, calledTools: boolean): string {
  if (finish === "STOP") return calledTools ? "tool_calls" : "stop";
  if (finish === "MAX_TOKENS") return "length";
  if (FILTERED.has(finish)) return "content_filter";
  return finish;
}

/** A generateContent answer as the result the hooks wrap; a blocked prompt is an empty answer that finished for its block reason. */
export function fromGenerate(json: Json): ChatResponse {
  const blocked = blockReasonOf(json);
  if (!Array.isArray(json?.candidates) && blocked === undefined) throw new SluiceError("UPSTREAM_FAILED", "the upstream sent a malformed answer (no candidates)", {});
  const parts = partsOf(json);
  const thoughts = parts.filter(isThought);
  const calls = callsOf(parts, 0);
  const finish = typeof json.candidates?.[0]?.finishReason === "string" ? json.candidates[0].finishReason : blocked ?? "STOP";
  return {
    content: parts.filter(isText).map((p) => p.text).join(""),
    ...(thoughts.length > 0 ? { reasoning_content: thoughts.map((p) => p.text).join("") } : {}),
    tool_calls: calls,
    finish_reason: chatFinishOf(finish, calls.length > 0),
    usage: usageOf(json.usageMetadata),
    provider_request_id: typeof json.responseId === "string" ? json.responseId : null,
  };
}

export function generateCall(upstream: Upstream, path: string, body: GeminiBody, view: GeminiView, facts: GeminiFacts) {
  return async (effective: ChatRequest, op: OperationContext): Promise<ChatResponse> => {
    facts.answer = await upstream.json(path, toGeminiUpstream(body, view, effective), op.signal);
    return fromGenerate(facts.answer);
  };
}

export function streamCall(upstream: Upstream, path: string, body: GeminiBody, view: GeminiView, facts: GeminiFacts) {
  return async function* (effective: ChatRequest, op: OperationContext): AsyncGenerator<StreamChunk> {
    const signal = op.signal;
    let calls = 0;
    let finished = false;
    for await (const data of upstream.events(path, toGeminiUpstream(body, view, effective), signal)) {
      let json: Json;
      try { json = JSON.parse(data); } catch { throw new SluiceError("UPSTREAM_FAILED", "the upstream sent a stream event that is not JSON"); }
      // A plain JSON answer to a stream request is an array of responses.
      for (const one of Array.isArray(json) ? json : [json]) {
        if (one?.error) {
          const error = sanitiseUpstreamError(200, one.error);
          throw new SluiceError("UPSTREAM_FAILED", `the upstream's stream failed${error.code ? ` (${error.code})` : ""}: ${error.message ?? "unknown error"}`, { upstream: error });
        }
        const parts = partsOf(one);
        const chunk: StreamChunk = {};
        const text = parts.filter(isText).map((p) => p.text).join("");
        const thought = parts.filter(isThought).map((p) => p.text).join("");
        if (text !== "") chunk.delta = text;
        if (thought !== "") chunk.reasoning_content = thought;
        const found = callsOf(parts, calls);
        if (found.length > 0) chunk.tool_calls = found.map((c, i) => ({ index: calls + i, id: c.id, function: c.function }));
        calls += found.length;
        const finish = one?.candidates?.[0]?.finishReason ?? blockReasonOf(one);
        if (typeof finish === "string") { chunk.finish_reason = chatFinishOf(finish, calls > 0); finished = true; }
        if (one?.usageMetadata) chunk.usage = usageOf(one.usageMetadata);
        if (typeof one?.responseId === "string") chunk.provider_request_id = one.responseId;
        facts.chunks.push(one);
        yield chunk;
      }
    }
    // Gemini ends every answer with a finishReason (or a prompt's blockReason): a body that ends before it was cut.
    if (!finished) throw new SluiceError("UPSTREAM_FAILED", "the upstream's stream ended without a finishReason: the answer is incomplete");
  };
}
