/**
 * An Anthropic Messages body in, the hooks' view of it (model.chat.before's payload), and
 * back. The view: the system prompt as the first system message (its blocks as text parts),
 * then each message in order with its blocks as content parts (text blocks as text parts,
 * images as image_url parts, every other block shown by its type only), a mid-conversation `role: "system"` message as
 * a system message, an assistant's `tool_use` blocks as its tool_calls, and each
 * `tool_result` block as a tool message just before the message that carries it, so hooks
 * read tool output as they do on chat completions. Every tool is among the view's tools
 * (one Anthropic defines, such as web search, by its name and type);
 * `max_tokens`, `temperature`, `top_p`, `stop_sequences` (as `stop`) and `tool_choice` its params.
 *
 * Back: the upstream body is the client's body with only what a hook changed written into
 * the place it came from (the system prompt, a message's content, a tool_result's content,
 * a param); an appended message is appended. Everything else is forwarded byte for byte in
 * value, thinking blocks and their signatures included.
 */
import { SluiceError } from "../errors/sluice-error.js";
import type { ChatMessage, ChatRequest, ContentPart } from "../boundary/chat.js";
import { canonicalJson } from "../pipeline/canonical-json.js";
import { withChanges, withKeys } from "../objects/with-keys.js";
import { blocksOf, partsOf } from "./anthropic-parts.js";

type Json = Record<string, any>;

export interface AnthropicBody {
  model: string;
  messages: { role: string; content: string | Json[]; [field: string]: unknown }[];
  system?: string | Json[];
  tools?: Json[];
  stream?: boolean;
  max_tokens?: number;
  [field: string]: unknown;
}

/** Where a view message came from, so a hook's change is written back in its place. */
export type Origin = { kind: "system" } | { kind: "message"; index: number } | { kind: "tool_result"; index: number; block: number };

export interface AnthropicView { request: ChatRequest; origins: Origin[] }

const ROLES = new Set(["user", "assistant", "system"]);

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function invalid(message: string, param: string): SluiceError {
  return new SluiceError("REQUEST_INVALID", message, { param });
}

function checkBlocks(content: unknown, where: string): void {
  if (typeof content === "string") return;
  if (!Array.isArray(content) || !content.every((b) => isObject(b) && typeof b.type === "string")) throw invalid(`${where} must be a string or an array of content blocks (objects with a type)`, where);
}

/** Checks the fields the gateway relies on; the upstream checks the rest, as it would without the gateway. */
export function readAnthropicBody(body: unknown): AnthropicBody {
  if (!isObject(body)) throw invalid("the request body must be a JSON object", "body");
  if (typeof body.model !== "string" || body.model === "") throw invalid("model must be a non-empty string", "model");
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw invalid("messages must be a non-empty array", "messages");
  body.messages.forEach((m: unknown, i: number) => {
    if (!isObject(m) || !ROLES.has(m.role)) throw invalid(`messages.${i}.role must be one of ${[...ROLES].join(", ")}`, `messages.${i}.role`);
    checkBlocks(m.content, `messages.${i}.content`);
  });
  if (body.system != null) checkBlocks(body.system, "system");
  if (body.tools != null && !(Array.isArray(body.tools) && body.tools.every(isObject))) throw invalid("tools must be an array of tools (objects)", "tools");
  if (body.stream != null && typeof body.stream !== "boolean") throw invalid("stream must be a boolean", "stream");
  return body as AnthropicBody;
}

/** Blocks as the hooks see them (anthropic-parts.ts): a text block as a text part, an image as an image_url part. */
function contentOf(content: string | Json[]): string | ContentPart[] {
  return typeof content === "string" ? content : partsOf(content);
}

/** A tool_result's content as a tool message's: its text, or its blocks. */
function toolResultContent(block: Json): string | ContentPart[] {
  const c = block.content;
  if (c == null) return "";
  return typeof c === "string" ? c : Array.isArray(c) ? partsOf(c) : "";
}

const PARAMS = ["max_tokens", "temperature", "top_p", "tool_choice"] as const;

export function toAnthropicView(body: AnthropicBody): AnthropicView {
  const messages: ChatMessage[] = [];
  const origins: Origin[] = [];
  if (body.system != null && body.system !== "") {
    messages.push({ role: "system", content: contentOf(body.system) });
    origins.push({ kind: "system" });
  }
  body.messages.forEach((m, index) => {
    const blocks = typeof m.content === "string" ? [] : m.content;
    blocks.forEach((b, block) => {
      if (b.type !== "tool_result") return;
      messages.push({ role: "tool", tool_call_id: String(b.tool_use_id ?? ""), content: toolResultContent(b) });
      origins.push({ kind: "tool_result", index, block });
    });
    const calls = blocks.filter((b) => b.type === "tool_use").map((b) => ({ id: String(b.id ?? ""), type: "function" as const, function: { name: String(b.name ?? ""), arguments: JSON.stringify(b.input ?? {}) } }));
    messages.push({ role: m.role as ChatMessage["role"], content: contentOf(m.content), ...(calls.length > 0 ? { tool_calls: calls } : {}) });
    origins.push({ kind: "message", index });
  });
  // A tool Anthropic defines (web search, bash, the text editor) has a type and no schema:
  // listed too, so a policy on what the model may use sees every tool (tools are read-only to hooks).
  const tools = (body.tools ?? []).filter((t) => typeof t.name === "string" || typeof t.type === "string").map((t) => (isObject(t.input_schema)
    ? { name: String(t.name ?? ""), ...(typeof t.description === "string" ? { description: t.description } : {}), parameters: t.input_schema as Record<string, unknown> }
    : { name: String(t.name ?? t.type), description: `an Anthropic-defined tool of type ${String(t.type)}`, parameters: { type: "object", properties: {} } }));
  const params: Record<string, unknown> = {};
  for (const key of PARAMS) if (body[key] != null) params[key] = body[key];
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.length > 0) params.stop = body.stop_sequences;
  return {
    request: { model: body.model, messages, ...(tools.length > 0 ? { tools } : {}), ...(Object.keys(params).length > 0 ? { params } : {}) },
    origins,
  };
}

const same = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

/** Text a hook wrote where the wire wants blocks or a string. */
function wireContent(content: unknown): string | Json[] {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return blocksOf(content);
  return "";
}

/** An appended view message as an Anthropic message (a tool message as a user turn's tool_result). */
function appended(m: ChatMessage): Json {
  if (m.role === "tool") return { role: "user", content: [{ type: "tool_result", tool_use_id: m.tool_call_id ?? "", content: wireContent(m.content) }] };
  return { role: m.role === "developer" ? "system" : m.role, content: wireContent(m.content) };
}

/**
 * The upstream body: the client's, with each change the hooks made written where its view
 * came from. `view` is what the hooks were given, so an unchanged field is the client's own.
 */
export function toAnthropicUpstream(body: AnthropicBody, view: AnthropicView, effective: ChatRequest): Json {
  const out: Json = withKeys(body, {});
  let messages = body.messages;
  const copy = () => { if (messages === body.messages) messages = messages.slice(); return messages; };
  const seen = view.request.messages;
  // A message's content first, then the tool results inside it, so both changes hold.
  for (const pass of ["message", "tool_result"] as const) {
    effective.messages.forEach((now, k) => {
      const origin = view.origins[k];
      if (!origin || (origin.kind === "tool_result" ? "tool_result" : "message") !== pass) return;
      if (same(now.content, seen[k]?.content)) return;
      if (origin.kind === "system") out.system = wireContent(now.content);
      else if (origin.kind === "message") copy()[origin.index] = withChanges(messages[origin.index]!, { content: wireContent(now.content) });
      else {
        const m = messages[origin.index]!;
        const blocks = (m.content as Json[]).slice();
        blocks[origin.block] = withKeys(blocks[origin.block]!, { content: wireContent(now.content) });
        copy()[origin.index] = withChanges(m, { content: blocks });
      }
    });
  }
  const extra = effective.messages.slice(view.origins.length).map(appended);
  if (extra.length > 0) copy().push(...(extra as AnthropicBody["messages"]));
  if (messages !== body.messages) out.messages = messages;
  const was = (view.request.params ?? {}) as Json;
  const now = (effective.params ?? {}) as Json;
  for (const key of PARAMS) {
    if (same(now[key], was[key])) continue;
    if (now[key] === undefined) delete out[key];
    else out[key] = now[key];
  }
  if (!same(now.stop, was.stop)) {
    if (now.stop === undefined) delete out.stop_sequences;
    else out.stop_sequences = typeof now.stop === "string" ? [now.stop] : now.stop;
  }
  return out;
}
