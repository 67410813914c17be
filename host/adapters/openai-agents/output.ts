/** The Agents SDK's model output items as the host's answer, and the items the caller gets after the hooks. */
import type { AgentOutputItem, ModelResponse } from "@openai/agents";
import type { Answer } from "../shared/host-chat.js";
import { splitBack } from "../shared/split-back.js";

type Any = Record<string, unknown>;

/** Where a text of the output sits: item `item`, its `field` list (`content`, or a reasoning item's `rawContent`), part `part`. */
interface Slot { item: number; field: "content" | "rawContent"; part: number; text: string }

/**
 * The output's texts, slot by slot: every output_text of every assistant message
 * (content), every input_text of a reasoning item's content and reasoning_text of its
 * rawContent (reasoning). Hooks see each channel's slots joined.
 */
export function outputSlots(output: readonly AgentOutputItem[]): { content: Slot[]; reasoning: Slot[] } {
  const content: Slot[] = [];
  const reasoning: Slot[] = [];
  (output as unknown as Any[]).forEach((item, i) => {
    const parts = (field: "content" | "rawContent", type: string, into: Slot[]): void => {
      const list = item[field];
      if (Array.isArray(list)) (list as Any[]).forEach((p, j) => { if (p?.type === type && typeof p.text === "string") into.push({ item: i, field, part: j, text: p.text }); });
    };
    if (item.type === "message" && item.role === "assistant") parts("content", "output_text", content);
    if (item.type === "reasoning") { parts("content", "input_text", reasoning); parts("rawContent", "reasoning_text", reasoning); }
  });
  return { content, reasoning };
}

const joined = (slots: readonly Slot[]): string => slots.map((s) => s.text).join("");

export function answerOfOutput(output: readonly AgentOutputItem[], usage: ModelResponse["usage"] | undefined): Answer {
  const items = output as unknown as Any[];
  const slots = outputSlots(output);
  const text = joined(slots.content);
  const reasoning = joined(slots.reasoning);
  const toolCalls = items.flatMap((i) => (i.type === "function_call" ? [{ id: String(i.callId), type: "function" as const, function: { name: String(i.name), arguments: String(i.arguments ?? "{}") } }] : []));
  return {
    text: text === "" && toolCalls.length ? null : text, ...(reasoning ? { reasoning } : {}), toolCalls,
    finishReason: toolCalls.length ? "tool_calls" : "stop",
    usage: { input: usage?.inputTokens ?? 0, output: usage?.outputTokens ?? 0 },
  };
}

/**
 * The caller's items: the model's own, part for part (annotations, provider data, ids,
 * encrypted reasoning), with only the text the hooks changed rewritten in the parts it
 * came from (see splitBack); the hooked function calls in place of the model's. Without
 * `real` (a hook served the answer), items built from the answer.
 */
export function outputOf(answer: Answer, real: readonly AgentOutputItem[] | undefined): AgentOutputItem[] {
  const calls = new Map(answer.toolCalls.map((c) => [c.id, c]));
  const out: Any[] = [...((real ?? []) as unknown as Any[])];
  const slots = outputSlots(real ?? []);
  for (const [channel, hooked] of [["content", answer.text ?? ""], ["reasoning", answer.reasoning ?? ""]] as const) {
    const now = splitBack(slots[channel].map((s) => s.text), hooked);
    slots[channel].forEach((s, k) => {
      if (now[k] === s.text) return;
      const item = (out[s.item] = { ...out[s.item] });
      const list = (item[s.field] = [...(item[s.field] as Any[])]) as Any[];
      list[s.part] = { ...list[s.part], text: now[k] };
    });
  }
  const kept = out.filter((item) => {
    if (item.type !== "function_call") return true;
    const call = calls.get(String(item.callId));
    if (!call) return false;
    calls.delete(call.id);
    return true;
  }).map((item) => {
    const call = item.type === "function_call" ? answer.toolCalls.find((c) => c.id === String(item.callId)) : undefined;
    return call && (call.function.name !== item.name || call.function.arguments !== item.arguments) ? { ...item, name: call.function.name, arguments: call.function.arguments } : item;
  });
  // Text a hook wrote where the model gave none.
  if (slots.content.length === 0 && answer.text) kept.unshift({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: answer.text }] });
  for (const c of calls.values()) kept.push({ type: "function_call", callId: c.id, name: c.function.name, arguments: c.function.arguments, status: "completed" });
  return kept as unknown as AgentOutputItem[];
}
