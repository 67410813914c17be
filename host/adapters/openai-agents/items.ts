/**
 * The Agents SDK's items as the host's chat messages, and back. Items are regrouped the
 * way chat models see them: an assistant message and the function calls after it become
 * one assistant message with tool_calls, a reasoning item joins the assistant message it
 * precedes, a function_call_result becomes a tool message. Each chat message remembers
 * the items it came from, so on the way back an unchanged message hands on its items as
 * they were, and a changed one has only its text rewritten. Items chat models do not
 * have (hosted tools, computer use, compaction) keep their place, unseen by hooks.
 */
import type { AgentInputItem, ModelRequest } from "@openai/agents";
import type { ChatMessage } from "../../index.js";

type Item = AgentInputItem;
type Any = Record<string, unknown>;

export interface MappedInput {
  messages: ChatMessage[];
  /** For each chat message, the items it came from (-1: the system instructions). */
  origins: number[][];
}

const textParts = (content: unknown, types: readonly string[]): string =>
  typeof content === "string" ? content : Array.isArray(content) ? (content as Any[]).flatMap((c) => (types.includes(String(c.type)) && typeof c.text === "string" ? [c.text] : [])).join("") : "";

export function outputText(output: unknown): string {
  if (typeof output === "string") return output;
  if (Array.isArray(output)) return output.map(outputText).join("");
  const o = output as Any | null;
  return o && o.type === "text" && typeof o.text === "string" ? o.text : o && (o.type === "input_text" || o.type === "output_text") ? String(o.text) : JSON.stringify(output ?? null);
}

function userContent(content: unknown): ChatMessage["content"] {
  if (typeof content === "string") return content;
  const parts = (content as Any[]).map((c): Any => {
    if (c.type === "input_text") return { type: "text", text: c.text };
    if (c.type === "input_image") return { type: "image_url", image_url: { url: typeof c.image === "string" ? c.image : "" } };
    return c;
  });
  return (parts.length === 1 && parts[0]!.type === "text" ? parts[0]!.text : parts) as ChatMessage["content"];
}

export function messagesOf(request: Pick<ModelRequest, "input" | "systemInstructions">): MappedInput {
  const messages: ChatMessage[] = [];
  const origins: number[][] = [];
  if (request.systemInstructions) { messages.push({ role: "system", content: request.systemInstructions }); origins.push([-1]); }
  if (typeof request.input === "string") { messages.push({ role: "user", content: request.input }); origins.push([0]); return { messages, origins }; }
  let assistant: (ChatMessage) | undefined;
  let reasoning: { text: string; at: number[] } | undefined;
  const open = (at: number): ChatMessage => {
    const m: ChatMessage = { role: "assistant", content: null, ...(reasoning ? { reasoning_content: reasoning.text } : {}) };
    messages.push(m);
    origins.push([...(reasoning?.at ?? []), at]);
    reasoning = undefined;
    return m;
  };
  request.input.forEach((raw, i) => {
    const item = raw as Any;
    const type = item.type ?? "message";
    if (type === "reasoning") { reasoning = { text: (reasoning?.text ?? "") + textParts(item.content, ["input_text"]), at: [...(reasoning?.at ?? []), i] }; return; }
    if (type === "function_call") {
      const m = assistant ?? (assistant = open(i));
      if (origins.at(-1)!.at(-1) !== i) origins.at(-1)!.push(i);
      (m.tool_calls ??= []).push({ id: String(item.callId), type: "function", function: { name: String(item.name), arguments: String(item.arguments ?? "{}") } });
      return;
    }
    assistant = undefined;
    if (type === "message" && item.role === "assistant") {
      const m = (assistant = open(i));
      m.content = textParts(item.content, ["output_text"]);
      return;
    }
    if (type === "message" && item.role === "system") { messages.push({ role: "system", content: String(item.content) }); origins.push([i]); return; }
    if (type === "message" && item.role === "user") { messages.push({ role: "user", content: userContent(item.content) }); origins.push([i]); return; }
    if (type === "function_call_result") { messages.push({ role: "tool", tool_call_id: String(item.callId), content: outputText(item.output) }); origins.push([i]); }
  });
  return { messages, origins };
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const str = (c: unknown): string => textParts(c, ["text"]);

/** One item rewritten with the text a hook left for its message. */
function rewritten(item: Any, now: ChatMessage, before: ChatMessage): Any {
  const type = item.type ?? "message";
  if (type === "reasoning") return now.reasoning_content === before.reasoning_content ? item : { ...item, content: [{ type: "input_text", text: now.reasoning_content ?? "" }], rawContent: undefined };
  if (type === "function_call") {
    const call = now.tool_calls?.find((c) => c.id === item.callId);
    return call ? { ...item, arguments: call.function.arguments } : item;
  }
  if (same(now.content, before.content)) return item;
  const text = typeof now.content === "string" ? now.content : str(now.content);
  if (type === "function_call_result") return { ...item, output: { type: "text", text } };
  if (item.role === "assistant") return { ...item, content: [{ type: "output_text", text }] };
  if (item.role === "system") return { ...item, content: text };
  if (typeof now.content !== "string") return { ...item, content: (now.content as unknown as Any[]).map((p) => (p.type === "text" ? { type: "input_text", text: p.text } : p)) };
  return { ...item, content: Array.isArray(item.content) ? withText(item.content as Any[], now.content) : now.content };
}

/** Parts with one input_text (the new text) in place of the first, the other text parts dropped, images and files kept. */
function withText(parts: readonly Any[], text: string): Any[] {
  const at = parts.findIndex((p) => p.type === "input_text");
  const out = parts.filter((p) => p.type !== "input_text");
  out.splice(at < 0 ? 0 : parts.slice(0, at).filter((p) => p.type !== "input_text").length, 0, { ...(at < 0 ? {} : parts[at]), type: "input_text", text });
  return out;
}

function appended(m: ChatMessage): Item {
  const text = typeof m.content === "string" ? m.content : str(m.content);
  if (m.role === "tool") return { type: "function_call_result", callId: m.tool_call_id ?? "", name: m.name ?? "", status: "completed", output: { type: "text", text } } as Item;
  if (m.role === "assistant") return { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] } as Item;
  return { type: "message", role: m.role, content: text } as Item;
}

/** The request for the model after the hooks: `mapped` is what they were shown, `hooked` what they left. */
export function inputAfter(request: ModelRequest, mapped: MappedInput, hooked: readonly ChatMessage[]): Pick<ModelRequest, "input" | "systemInstructions"> {
  const owner = new Map<number, number>();
  mapped.origins.forEach((at, k) => { for (const i of at) owner.set(i, k); });
  const changed = (k: number): boolean => !same(mapped.messages[k], hooked[k]);
  const sys = owner.get(-1);
  const textNow = (k: number): string => (typeof hooked[k]?.content === "string" ? String(hooked[k]!.content) : str(hooked[k]?.content));
  const systemInstructions = sys !== undefined && changed(sys) ? textNow(sys) : request.systemInstructions;
  const added = hooked.slice(mapped.messages.length).map(appended);
  if (typeof request.input === "string") {
    const k = owner.get(0)!;
    if (!changed(k) && added.length === 0) return { input: request.input, ...(systemInstructions !== undefined ? { systemInstructions } : {}) };
    return { input: [{ type: "message", role: "user", content: changed(k) ? textNow(k) : request.input } as Item, ...added], ...(systemInstructions !== undefined ? { systemInstructions } : {}) };
  }
  const items = request.input.map((item, i) => {
    const k = owner.get(i);
    return k === undefined || !changed(k) ? item : (rewritten(item as Any, hooked[k]!, mapped.messages[k]!) as Item);
  });
  const input = [...items, ...added];
  return { input, ...(systemInstructions !== undefined ? { systemInstructions } : {}) };
}
