/**
 * OpenAI completions and chunks in (from the upstream) and out (to the client). The
 * upstream's usage names map onto the hooks' (prompt_tokens → input_tokens,
 * completion_tokens → output_tokens) and back.
 */
import { randomUUID } from "node:crypto";
import { SluiceError } from "../errors/sluice-error.js";
import type { ChatResponse, ToolCallOut } from "../boundary/chat.js";
import { answerText, usageView } from "../boundary/chat.js";
import type { EmittedChunk, StreamChunk } from "../boundary/stream.js";
import type { CompletionMeta, WireToolCallDelta, WireUsage } from "./wire.js";
import { withKeys } from "../objects/with-keys.js";

type Json = Record<string, any>;

function malformed(what: string): SluiceError {
  return new SluiceError("UPSTREAM_FAILED", `the upstream sent a malformed ${what}`, {});
}

/** Identity for an answer the upstream did not give (a short-circuit): our own id, the requested model. */
export function ownMeta(model: string): CompletionMeta {
  return { id: `chatcmpl-${randomUUID()}`, created: Math.floor(Date.now() / 1000), model };
}

export function metaOf(json: Json, model: string): CompletionMeta {
  return {
    id: typeof json.id === "string" ? json.id : `chatcmpl-${randomUUID()}`,
    created: typeof json.created === "number" ? json.created : Math.floor(Date.now() / 1000),
    model: typeof json.model === "string" ? json.model : model,
    ...(typeof json.system_fingerprint === "string" ? { system_fingerprint: json.system_fingerprint } : {}),
  };
}

function usageOf(u: Json | undefined | null): ChatResponse["usage"] | undefined {
  if (typeof u !== "object" || u === null) return undefined;
  return { input_tokens: Math.max(0, Math.trunc(Number(u.prompt_tokens) || 0)), output_tokens: Math.max(0, Math.trunc(Number(u.completion_tokens) || 0)) };
}

/** The upstream's usage, with the counts the hooks saw (a short-circuit has no upstream usage). */
export function wireUsage(usage: ChatResponse["usage"], upstream: WireUsage | undefined): WireUsage {
  const u = usageView(usage);
  return withKeys(upstream ?? {}, { prompt_tokens: u.input_tokens, completion_tokens: u.output_tokens, total_tokens: u.input_tokens + u.output_tokens });
}

/** An upstream chat completion as the result of the operation the hooks wrap. */
export function fromCompletion(json: Json): ChatResponse {
  const choice = Array.isArray(json?.choices) ? json.choices[0] : undefined;
  const message = choice?.message;
  if (typeof message !== "object" || message === null) throw malformed("chat completion (no choices[0].message)");
  const calls: ToolCallOut[] = (Array.isArray(message.tool_calls) ? message.tool_calls : []).map((c: Json) => ({
    id: String(c?.id ?? ""), type: "function" as const, function: { name: String(c?.function?.name ?? ""), arguments: String(c?.function?.arguments ?? "") },
  }));
  const reasoning = message.reasoning_content ?? message.reasoning;
  return {
    content: typeof message.content === "string" ? message.content : null,
    // Refusal and reasoning text go through the hooks like the answer (ABI 1.1): what the client gets of them is what the hooks left.
    ...(typeof message.refusal === "string" ? { refusal: message.refusal } : {}),
    ...(typeof reasoning === "string" ? { reasoning_content: reasoning } : {}),
    tool_calls: calls,
    finish_reason: typeof choice.finish_reason === "string" ? choice.finish_reason : "stop",
    usage: usageOf(json.usage) ?? { input_tokens: 0, output_tokens: 0 },
    provider_request_id: typeof json.id === "string" ? json.id : null,
  };
}

/** The client's completion: the effective answer, under the upstream's identity. */
export function toCompletion(meta: CompletionMeta, out: ChatResponse): Json {
  const message: Json = { role: "assistant", content: out.content, refusal: typeof out.refusal === "string" ? out.refusal : null };
  if (typeof out.reasoning_content === "string") message.reasoning_content = out.reasoning_content;
  if (out.tool_calls.length > 0) message.tool_calls = out.tool_calls;
  return {
    id: meta.id, object: "chat.completion", created: meta.created, model: meta.model,
    ...(meta.system_fingerprint ? { system_fingerprint: meta.system_fingerprint } : {}),
    choices: [{ index: 0, message, logprobs: null, finish_reason: out.finish_reason }],
    usage: wireUsage(out.usage, meta.usage),
  };
}

/** One upstream chunk as the host's stream chunk; a usage-only chunk (no choices) is one too. */
export function fromChunk(json: Json): StreamChunk {
  if (typeof json !== "object" || json === null || (json.choices !== undefined && !Array.isArray(json.choices))) throw malformed("stream chunk");
  const choice = json.choices?.[0];
  const delta = choice?.delta ?? {};
  const tool_calls = Array.isArray(delta.tool_calls)
    ? delta.tool_calls.map((d: Json) => ({
        index: Number(d?.index ?? 0),
        ...(typeof d?.id === "string" ? { id: d.id } : {}),
        ...(d?.function ? { function: functionDelta(d.function) } : {}),
      }))
    : undefined;
  const usage = usageOf(json.usage);
  const reasoning = delta.reasoning_content ?? delta.reasoning;
  // Key by key, once per streamed chunk (see host/objects/with-keys.ts for why not spreads).
  const out: StreamChunk = {};
  if (typeof delta.content === "string") out.delta = delta.content;
  if (typeof reasoning === "string" && reasoning !== "") out.reasoning_content = reasoning;
  if (typeof delta.refusal === "string" && delta.refusal !== "") out.refusal = delta.refusal;
  if (tool_calls?.length) out.tool_calls = tool_calls;
  if (typeof choice?.finish_reason === "string") out.finish_reason = choice.finish_reason;
  if (usage) out.usage = usage;
  if (typeof json.id === "string") out.provider_request_id = json.id;
  return out;
}

function functionDelta(f: Json): { name?: string; arguments?: string } {
  const out: { name?: string; arguments?: string } = {};
  if (typeof f.name === "string") out.name = f.name;
  if (typeof f.arguments === "string") out.arguments = f.arguments;
  return out;
}

/** A whole completion as one stream chunk: its content, its tool calls as complete deltas, its finish_reason and usage. */
export function completionChunk(json: Json): StreamChunk {
  const c = fromCompletion(json);
  const out: StreamChunk = {};
  if (answerText(c.content) !== "") out.delta = answerText(c.content);
  if (typeof c.reasoning_content === "string" && c.reasoning_content !== "") out.reasoning_content = c.reasoning_content;
  if (typeof c.refusal === "string" && c.refusal !== "") out.refusal = c.refusal;
  if (c.tool_calls.length) out.tool_calls = c.tool_calls.map((t, index) => ({ index, id: t.id, function: { name: t.function.name, arguments: t.function.arguments } }));
  out.finish_reason = c.finish_reason;
  out.usage = c.usage;
  if (c.provider_request_id) out.provider_request_id = c.provider_request_id;
  return out;
}

/** A client chunk. The first carries the role; tool_call deltas go out as the upstream sent them. */
export function toChunk(meta: CompletionMeta, delta: { role?: "assistant"; content?: string; reasoning_content?: string; refusal?: string; tool_calls?: WireToolCallDelta[] }, finishReason: string | null): Json {
  return {
    id: meta.id, object: "chat.completion.chunk", created: meta.created, model: meta.model,
    ...(meta.system_fingerprint ? { system_fingerprint: meta.system_fingerprint } : {}),
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  };
}

export function usageChunk(meta: CompletionMeta, usage: ChatResponse["usage"]): Json {
  return { id: meta.id, object: "chat.completion.chunk", created: meta.created, model: meta.model, choices: [], usage: wireUsage(usage, meta.usage) };
}

/** The delta of an emitted chunk, or null when it carries nothing for the client. */
export function deltaOf(chunk: EmittedChunk): { content?: string; reasoning_content?: string; refusal?: string; tool_calls?: WireToolCallDelta[] } | null {
  const calls = chunk.tool_calls?.map((d): WireToolCallDelta => ({ index: d.index, ...(d.id ? { id: d.id, type: "function" as const } : {}), ...(d.function ? { function: d.function } : {}) }));
  if (chunk.delta === "" && !calls && !chunk.reasoning_content && !chunk.refusal) return null;
  const out: { content?: string; reasoning_content?: string; refusal?: string; tool_calls?: WireToolCallDelta[] } = {};
  if (chunk.reasoning_content) out.reasoning_content = chunk.reasoning_content;
  if (chunk.refusal) out.refusal = chunk.refusal;
  if (chunk.delta !== "") out.content = chunk.delta;
  if (calls) out.tool_calls = calls;
  return out;
}
