/**
 * An OpenAI chat body in, the hooks' view of it (model.chat.before's payload), and back:
 * the body the upstream gets is the client's body with only what the hooks may change
 * (message content, appended messages, sampling params) written back. Everything else,
 * including fields the gateway does not know, is forwarded as it came.
 */
import { SluiceError } from "../errors/sluice-error.js";
import type { ChatMessage, ChatRequest } from "../boundary/chat.js";
import { answerText } from "../boundary/chat.js";
import type { WireChatBody, WireContentPart, WireMessage } from "./wire.js";

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

/** Text parts joined: what a hook reads of a multi-part message. */
function textOf(content: WireMessage["content"]): string | null {
  if (content == null || typeof content === "string") return content ?? null;
  return content.filter((p) => typeof p?.text === "string").map((p) => p.text).join("\n");
}

/** The hooks' view of the body: model.chat.before's payload without `purpose`. */
export function toChatRequest(body: WireChatBody): ChatRequest {
  const messages = body.messages.map((m): ChatMessage => ({
    role: ROLES[m.role]!,
    content: textOf(m.content),
    ...(Array.isArray(m.tool_calls) && m.tool_calls.length > 0 ? { tool_calls: m.tool_calls.map((c) => ({ id: c.id, type: "function" as const, function: { name: c.function?.name, arguments: c.function?.arguments } })) } : {}),
    ...(typeof m.tool_call_id === "string" && m.tool_call_id !== "" ? { tool_call_id: m.tool_call_id } : {}),
    ...(typeof m.name === "string" ? { name: m.name } : {}),
  }));
  const tools = (body.tools ?? []).filter((t) => t?.type === "function" && t.function).map((t) => ({
    name: t.function!.name,
    ...(typeof t.function!.description === "string" ? { description: t.function!.description } : {}),
    parameters: t.function!.parameters ?? { type: "object", properties: {} },
  }));
  const params: NonNullable<ChatRequest["params"]> = {};
  if (body.temperature != null) params.temperature = body.temperature;
  if (body.top_p != null) params.top_p = body.top_p;
  const maxTokens = body.max_tokens ?? body.max_completion_tokens;
  if (maxTokens != null) params.max_tokens = maxTokens;
  if (body.stop != null) params.stop = typeof body.stop === "string" ? [body.stop] : body.stop;
  return {
    model: body.model,
    messages,
    ...(tools.length > 0 ? { tools } : {}),
    ...(Object.keys(params).length > 0 ? { params } : {}),
  };
}

/** A changed text replaces the text parts of a multi-part message and keeps its other parts (images, audio). */
function withContent(original: WireMessage, content: string | null): WireMessage {
  if (!Array.isArray(original.content) || content === null) return { ...original, content };
  const others = original.content.filter((p: WireContentPart) => p?.type !== "text");
  return { ...original, content: [{ type: "text", text: content }, ...others] };
}

/**
 * The upstream body: the client's body with the effective messages and params written back.
 * `view` is what the hooks were given, so an unchanged message is forwarded byte for byte.
 */
export function toUpstreamBody(body: WireChatBody, view: ChatRequest, effective: ChatRequest): Record<string, unknown> {
  const messages = effective.messages.map((m, i) => {
    const original = body.messages[i];
    if (original === undefined) return m;
    return m.content === view.messages[i]?.content ? original : withContent(original, answerText(m.content));
  });
  const out: Record<string, unknown> = { ...body, messages };
  const maxKey = body.max_tokens == null && body.max_completion_tokens != null ? "max_completion_tokens" : "max_tokens";
  for (const key of ["temperature", "top_p", "stop", maxKey]) delete out[key];
  const p = effective.params ?? {};
  if (p.temperature !== undefined) out.temperature = p.temperature;
  if (p.top_p !== undefined) out.top_p = p.top_p;
  if (p.max_tokens !== undefined) out[maxKey] = p.max_tokens;
  if (p.stop !== undefined) out.stop = p.stop;
  return out;
}
