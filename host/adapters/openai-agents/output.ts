/** The Agents SDK's model output items as the host's answer, and the items the caller gets after the hooks. */
import type { AgentOutputItem, ModelResponse } from "@openai/agents";
import type { Answer } from "../shared/host-chat.js";

type Any = Record<string, unknown>;

const texts = (content: unknown, type: string): string =>
  Array.isArray(content) ? (content as Any[]).flatMap((c) => (c.type === type && typeof c.text === "string" ? [c.text] : [])).join("") : "";

export function answerOfOutput(output: readonly AgentOutputItem[], usage: ModelResponse["usage"] | undefined): Answer {
  const items = output as unknown as Any[];
  const text = items.flatMap((i) => (i.type === "message" && i.role === "assistant" ? [texts(i.content, "output_text")] : [])).join("");
  const reasoning = items.flatMap((i) => (i.type === "reasoning" ? [texts(i.content, "input_text")] : [])).join("");
  const toolCalls = items.flatMap((i) => (i.type === "function_call" ? [{ id: String(i.callId), type: "function" as const, function: { name: String(i.name), arguments: String(i.arguments ?? "{}") } }] : []));
  return {
    text: text === "" && toolCalls.length ? null : text, ...(reasoning ? { reasoning } : {}), toolCalls,
    finishReason: toolCalls.length ? "tool_calls" : "stop",
    usage: { input: usage?.inputTokens ?? 0, output: usage?.outputTokens ?? 0 },
  };
}

/**
 * The caller's items: the hooked text in the first assistant message (one output_text),
 * the hooked reasoning in the first reasoning item (reasoning the host did not carry is
 * dropped, never handed on unscanned), the hooked function calls in place of the model's;
 * any other item as the model returned it.
 */
export function outputOf(answer: Answer, real: readonly AgentOutputItem[] | undefined): AgentOutputItem[] {
  const calls = new Map(answer.toolCalls.map((c) => [c.id, c]));
  let textDone = false;
  let reasoningDone = false;
  const out: Any[] = [];
  for (const item of (real ?? []) as unknown as Any[]) {
    if (item.type === "message" && item.role === "assistant") {
      if (textDone) continue;
      textDone = true;
      if (answer.text) out.push({ ...item, content: [{ type: "output_text", text: answer.text }] });
      continue;
    }
    if (item.type === "reasoning") {
      if (reasoningDone) continue;
      reasoningDone = true;
      out.push({ ...item, content: answer.reasoning ? [{ type: "input_text", text: answer.reasoning }] : [], rawContent: undefined });
      continue;
    }
    if (item.type === "function_call") {
      const call = calls.get(String(item.callId));
      if (!call) continue;
      calls.delete(call.id);
      out.push({ ...item, name: call.function.name, arguments: call.function.arguments });
      continue;
    }
    out.push(item);
  }
  if (!textDone && answer.text) out.unshift({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: answer.text }] });
  for (const c of calls.values()) out.push({ type: "function_call", callId: c.id, name: c.function.name, arguments: c.function.arguments, status: "completed" });
  return out as unknown as AgentOutputItem[];
}
