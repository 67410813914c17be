/**
 * An OpenAI chat body in, the hooks' view of it (model.chat.before's payload), and back:
 * the body the upstream gets is the client's body with only what the hooks may change
 * (message content, appended messages, sampling params) written back. Everything else,
 * including fields the gateway does not know, is forwarded as it came.
 */
import { SluiceError } from "../errors/sluice-error.js";
import type { ChatMessage, ChatRequest } from "../boundary/chat.js";
import { canonicalJson } from "../pipeline/canonical-json.js";
import type { WireChatBody, WireMessage } from "./wire.js";
import { withKeys } from "../objects/with-keys.js";

const ROLES: Readonly<Record<string, ChatMessage["role"]>> = { system: "system", developer: "system", user: "user", assistant: "assistant", tool: "tool", function: "tool" };

function isObject(v: unknown): v is Record<string, any> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function invalid(message: string, param: string): SluiceError {
  return new SluiceError("REQUEST_INVALID", message, { param });
}

/** Checks the fields the gateway relies on; the hook point's schema checks the rest. */
export function readChatBody(body: unknown): WireChatBody {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw invalid("the request body must be a JSON object", "body");
  const b = body as WireChatBody;
  if (typeof b.model !== "string" || b.model === "") throw invalid("model must be a non-empty string", "model");
  if (!Array.isArray(b.messages) || b.messages.length === 0) throw invalid("messages must be a non-empty array", "messages");
  b.messages.forEach((m, i) => {
    if (typeof m !== "object" || m === null || !Object.hasOwn(ROLES, m.role)) throw invalid(`messages[${i}].role must be one of ${Object.keys(ROLES).join(", ")}`, `messages[${i}].role`);
    const c = m.content;
    if (c != null && typeof c !== "string" && !(Array.isArray(c) && c.every(isObject))) {
      throw invalid(`messages[${i}].content must be a string, null, or an array of content parts (objects)`, `messages[${i}].content`);
    }
    if (m.tool_calls != null && !(Array.isArray(m.tool_calls) && m.tool_calls.every((t) => isObject(t) && (t.function === undefined || isObject(t.function))))) {
      throw invalid(`messages[${i}].tool_calls must be an array of tool calls (objects with a function object)`, `messages[${i}].tool_calls`);
    }
  });
  if (b.tools != null && !(Array.isArray(b.tools) && b.tools.every((t) => isObject(t) && (t.function === undefined || isObject(t.function))))) {
    throw invalid("tools must be an array of tools (objects with a function object)", "tools");
  }
  if (b.stop != null && typeof b.stop !== "string" && !(Array.isArray(b.stop) && b.stop.every((s) => typeof s === "string"))) throw invalid("stop must be a string or an array of strings", "stop");
  if (b.stream_options != null && !isObject(b.stream_options)) throw invalid("stream_options must be an object", "stream_options");
  if (b.n != null && b.n !== 1) throw invalid("n must be 1: hooks see and govern exactly one choice", "n");
  if (b.stream != null && typeof b.stream !== "boolean") throw invalid("stream must be a boolean", "stream");
  return b;
}

/** Params the hooks see (and may change) under the wire's own names; every other body field is forwarded as it came. */
const WIRE_PARAMS = ["temperature", "top_p", "stop", "seed", "frequency_penalty", "presence_penalty", "logit_bias", "tool_choice", "response_format", "parallel_tool_calls"] as const;

/** The hooks' view of the body: model.chat.before's payload without `purpose`. */
export function toChatRequest(body: WireChatBody): ChatRequest {
  const messages = body.messages.map((m): ChatMessage => ({
    role: ROLES[m.role]!,
    // Content parts as they came (ABI 1.1): the host shows hooks the declared view and keeps the rest.
    content: m.content ?? null,
    ...(typeof m.refusal === "string" ? { refusal: m.refusal } : {}),
    ...(typeof m.reasoning_content === "string" ? { reasoning_content: m.reasoning_content } : {}),
    ...(Array.isArray(m.tool_calls) && m.tool_calls.length > 0 ? { tool_calls: m.tool_calls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.function?.name, arguments: c.function?.arguments } })) } : {}),
    ...(typeof m.tool_call_id === "string" && m.tool_call_id !== "" ? { tool_call_id: m.tool_call_id } : {}),
    ...(typeof m.name === "string" ? { name: m.name } : {}),
  }));
  const tools = (body.tools ?? []).filter((t) => t?.type === "function" && t.function).map((t) => ({
    name: t.function!.name,
    ...(typeof t.function!.description === "string" ? { description: t.function!.description } : {}),
    parameters: t.function!.parameters ?? { type: "object", properties: {} },
  }));
  const params: Record<string, unknown> = {};
  for (const key of WIRE_PARAMS) if (body[key] != null) params[key] = body[key];
  const maxTokens = body.max_tokens ?? body.max_completion_tokens;
  if (maxTokens != null) params.max_tokens = maxTokens;
  return {
    model: body.model,
    messages,
    ...(tools.length > 0 ? { tools } : {}),
    ...(Object.keys(params).length > 0 ? { params } : {}),
  };
}

const same = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

/** The client's message with the texts the hooks changed written back (content as the host restored it, parts and all). */
function withChanges(original: WireMessage, seen: ChatMessage | undefined, now: ChatMessage): WireMessage {
  let out = original;
  for (const key of ["content", "refusal", "reasoning_content"] as const) {
    if (same(now[key], seen?.[key])) continue;
    out = { ...out };
    if (now[key] === undefined) delete out[key];
    else out[key] = now[key];
  }
  return out;
}

/**
 * The upstream body: the client's body with the effective messages and params written back.
 * `view` is what the hooks were given, so an unchanged message is forwarded byte for byte.
 */
export function toUpstreamBody(body: WireChatBody, view: ChatRequest, effective: ChatRequest): Record<string, unknown> {
  const messages = effective.messages.map((m, i) => {
    const original = body.messages[i];
    if (original === undefined) return m;
    return withChanges(original, view.messages[i], m);
  });
  const out: Record<string, unknown> = withKeys(body, { messages });
  const maxKey = body.max_tokens == null && body.max_completion_tokens != null ? "max_completion_tokens" : "max_tokens";
  const seen = (view.params ?? {}) as Record<string, unknown>;
  const now = (effective.params ?? {}) as Record<string, unknown>;
  // Hooks see the request's token limit as max_tokens, whichever key the client used: a
  // second limit a hook adds could not be written without contradicting the first.
  if (now.max_completion_tokens !== undefined) {
    throw new SluiceError("PATCH_FORBIDDEN", `a hook set params.max_completion_tokens; the gateway shows the request's token limit as params.max_tokens (written back under the key the client sent): change that`, { path: "/params/max_completion_tokens" });
  }
  // Only a param a hook changed is written; the rest of the body is the client's, byte for byte.
  for (const [wire, key] of [...WIRE_PARAMS.map((k) => [k, k] as const), [maxKey, "max_tokens"] as const]) {
    if (same(now[key], seen[key])) continue;
    if (now[key] === undefined) delete out[wire];
    else out[wire] = now[key];
  }
  return out;
}
