/**
 * The texts of a LangChain AI message or chunk, slot by slot: its content (a string, or
 * each text block), its reasoning (`additional_kwargs.reasoning_content`, each
 * `reasoning` and `thinking` block). Hooks see each channel's slots joined; what they
 * leave is written back slot by slot, so blocks stay blocks, with their ids, signatures
 * and indexes, and a message's other fields are its own.
 */
import { AIMessage, AIMessageChunk, isAIMessageChunk } from "@langchain/core/messages";
import type { ToolCallDelta } from "../../index.js";

type Block = Record<string, unknown>;
export type Slot = { kind: "string" } | { kind: "block"; at: number; field: string } | { kind: "kwargs" };

const REASONING_FIELD: Record<string, string> = { reasoning: "reasoning", thinking: "thinking" };

interface Texts { content: unknown; additional_kwargs?: Record<string, unknown> }

export function contentSlots(m: Texts): { slot: Slot; text: string }[] {
  if (typeof m.content === "string") return [{ slot: { kind: "string" }, text: m.content }];
  if (!Array.isArray(m.content)) return [];
  return (m.content as Block[]).flatMap((b, at) => (typeof b === "object" && b?.type === "text" && typeof b.text === "string" ? [{ slot: { kind: "block", at, field: "text" } as Slot, text: b.text }] : []));
}

export function reasoningSlots(m: Texts): { slot: Slot; text: string }[] {
  const out: { slot: Slot; text: string }[] = [];
  const r = m.additional_kwargs?.reasoning_content;
  if (typeof r === "string") out.push({ slot: { kind: "kwargs" }, text: r });
  if (Array.isArray(m.content)) {
    (m.content as Block[]).forEach((b, at) => {
      const field = typeof b === "object" && b !== null ? REASONING_FIELD[String(b.type)] : undefined;
      if (field && typeof b[field] === "string") out.push({ slot: { kind: "block", at, field }, text: b[field] as string });
    });
  }
  return out;
}

export const joined = (slots: readonly { text: string }[]): string => slots.map((s) => s.text).join("");

/** `m`'s content and additional kwargs with each slot's text replaced. */
export function withTexts(m: Texts, texts: readonly { slot: Slot; text: string }[]): { content: unknown; additional_kwargs: Record<string, unknown> } {
  let content = m.content;
  const kwargs = { ...(m.additional_kwargs ?? {}) };
  if (Array.isArray(content)) content = [...(content as Block[])];
  for (const { slot, text } of texts) {
    if (slot.kind === "string") content = text;
    else if (slot.kind === "kwargs") kwargs.reasoning_content = text;
    else (content as Block[])[slot.at] = { ...(content as Block[])[slot.at], [slot.field]: text };
  }
  return { content, additional_kwargs: kwargs };
}

/** The constructor fields of `m` as it is now (a generation's info may have been folded into its metadata since it was built). */
function fieldsOf(m: AIMessage | AIMessageChunk): Record<string, unknown> {
  const kw = (m as unknown as { lc_kwargs?: Record<string, unknown> }).lc_kwargs ?? {};
  return { ...kw, id: m.id, name: m.name, response_metadata: m.response_metadata, usage_metadata: m.usage_metadata };
}

/** A copy of the message with new texts. */
export function messageWith(m: AIMessage, texts: readonly { slot: Slot; text: string }[]): AIMessage {
  return new AIMessage({ ...fieldsOf(m), ...withTexts(m, texts), tool_calls: m.tool_calls ?? [], invalid_tool_calls: m.invalid_tool_calls ?? [] } as never);
}

/**
 * The model's chunk as the consumer's chunk: a whole message (from a model that does not
 * stream) as a chunk, and tool calls that came whole as tool call chunks too (`calls`:
 * their deltas, as the host was given them), so concatenated chunks keep them.
 */
export function withCallChunks(c: AIMessageChunk, calls: readonly ToolCallDelta[]): AIMessageChunk {
  const message = !isAIMessageChunk(c as never);
  if (message && !c.tool_calls?.length) return new AIMessageChunk({ ...fieldsOf(c), content: c.content, additional_kwargs: c.additional_kwargs } as never);
  if (c.tool_call_chunks?.length || !c.tool_calls?.length) return c;
  const tool_call_chunks = calls.map((d) => ({ type: "tool_call_chunk" as const, index: d.index, ...(d.id ? { id: d.id } : {}), ...(d.function?.name ? { name: d.function.name } : {}), args: d.function?.arguments ?? "" }));
  return new AIMessageChunk({ ...fieldsOf(c), content: c.content, additional_kwargs: c.additional_kwargs, tool_call_chunks } as never);
}

/** A copy of the chunk with new texts. */
export function chunkWith(c: AIMessageChunk, texts: readonly { slot: Slot; text: string }[]): AIMessageChunk {
  return new AIMessageChunk({ ...fieldsOf(c), ...withTexts(c, texts), tool_call_chunks: c.tool_call_chunks ?? [], ...(c.tool_call_chunks?.length ? {} : { tool_calls: c.tool_calls ?? [] }) } as never);
}
