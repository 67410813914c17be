/**
 * LangChain messages as the host's chat messages, and back. A message no hook changed is
 * handed on as the same object (ids, metadata, content blocks and all); a changed one is
 * rebuilt with its new content; an appended one is built from the chat shape.
 */
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatMessage, ToolCallOut } from "../../index.js";

type Block = { type?: string; text?: string; image_url?: unknown; [key: string]: unknown };

/** The text of a message's content: a string, or its text blocks joined. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as Block[]).flatMap((b) => (typeof b === "string" ? [b] : b?.type === "text" && typeof b.text === "string" ? [b.text] : [])).join("");
}

function userContent(content: unknown): ChatMessage["content"] {
  if (typeof content === "string") return content;
  const blocks = (content as Block[]).map((b): Block => {
    if (b.type === "text") return { type: "text", text: String(b.text ?? "") };
    if (b.type === "image_url") return { type: "image_url", image_url: typeof b.image_url === "string" ? { url: b.image_url } : b.image_url };
    return b;
  });
  return (blocks.length === 1 && blocks[0]!.type === "text" ? blocks[0]!.text : blocks) as ChatMessage["content"];
}

export function toolCallsOf(m: AIMessage): ToolCallOut[] {
  return (m.tool_calls ?? []).map((c, i) => ({ id: c.id ?? `call_${i}`, type: "function" as const, function: { name: c.name, arguments: JSON.stringify(c.args ?? {}) } }));
}

export function reasoningOf(m: { additional_kwargs?: Record<string, unknown> }): string {
  const r = m.additional_kwargs?.reasoning_content;
  return typeof r === "string" ? r : "";
}

export function chatMessageOf(m: BaseMessage): ChatMessage {
  const type = m.getType();
  if (type === "system") return { role: "system", content: textOf(m.content) };
  if (type === "ai") {
    const ai = m as AIMessage;
    const calls = toolCallsOf(ai);
    const text = textOf(ai.content);
    const reasoning = reasoningOf(ai);
    return { role: "assistant", content: text === "" && calls.length ? null : text, ...(calls.length ? { tool_calls: calls } : {}), ...(reasoning ? { reasoning_content: reasoning } : {}) } as ChatMessage;
  }
  if (type === "tool") return { role: "tool", tool_call_id: (m as ToolMessage).tool_call_id, content: textOf(m.content) };
  return { role: "user", content: userContent(m.content) };
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function rebuilt(m: BaseMessage, now: ChatMessage): BaseMessage {
  const content = typeof now.content === "string" || now.content === null ? (now.content ?? "") : (now.content as unknown as Block[]);
  const base = { content: content as string, id: m.id, name: m.name, additional_kwargs: m.additional_kwargs, response_metadata: m.response_metadata };
  switch (m.getType()) {
    case "system": return new SystemMessage(base);
    case "ai": return new AIMessage({ ...base, tool_calls: (m as AIMessage).tool_calls ?? [], ...((m as AIMessage).usage_metadata ? { usage_metadata: (m as AIMessage).usage_metadata } : {}) });
    case "tool": return new ToolMessage({ ...base, tool_call_id: (m as ToolMessage).tool_call_id, ...((m as ToolMessage).status ? { status: (m as ToolMessage).status } : {}) });
    default: return new HumanMessage(base);
  }
}

function appended(m: ChatMessage): BaseMessage {
  const content = textOf(m.content);
  switch (m.role) {
    case "system": return new SystemMessage(content);
    case "assistant": return new AIMessage(content);
    case "tool": return new ToolMessage({ content, tool_call_id: m.tool_call_id ?? "" });
    default: return new HumanMessage(content);
  }
}

/** The messages for the model after the hooks: `shown` is what they were shown, `hooked` what they left. */
export function messagesAfter(original: readonly BaseMessage[], shown: readonly ChatMessage[], hooked: readonly ChatMessage[]): BaseMessage[] {
  const kept = original.map((m, i) => (hooked[i] === undefined || same(shown[i], hooked[i]) ? m : rebuilt(m, hooked[i]!)));
  return [...kept, ...hooked.slice(original.length).map(appended)];
}
