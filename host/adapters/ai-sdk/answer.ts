/** An AI SDK generate result as the host's answer, and the result the caller gets after the hooks. */
import type { LanguageModelV4Content, LanguageModelV4FinishReason, LanguageModelV4GenerateResult, LanguageModelV4Usage } from "@ai-sdk/provider";
import type { Answer, Usage } from "../shared/host-chat.js";
import { splitBack } from "../shared/split-back.js";

/** The AI SDK's finish reasons by OpenAI's names, which the host speaks. */
export const TO_OPENAI: Record<LanguageModelV4FinishReason["unified"], string> = {
  stop: "stop", length: "length", "content-filter": "content_filter", "tool-calls": "tool_calls", error: "error", interrupted: "interrupted", other: "other",
};

export function finishOf(reason: string, original?: LanguageModelV4FinishReason): LanguageModelV4FinishReason {
  if (original && TO_OPENAI[original.unified] === reason) return original;
  const unified = (Object.keys(TO_OPENAI) as LanguageModelV4FinishReason["unified"][]).find((k) => TO_OPENAI[k] === reason) ?? "other";
  return { unified, raw: reason };
}

export function usageOf(u: LanguageModelV4Usage | undefined): Usage {
  return { input: u?.inputTokens.total ?? 0, output: u?.outputTokens.total ?? 0 };
}

export function sdkUsage(u: Usage): LanguageModelV4Usage {
  return { inputTokens: { total: u.input, noCache: undefined, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: u.output, text: undefined, reasoning: undefined } };
}

const join = (content: readonly LanguageModelV4Content[], type: "text" | "reasoning"): string =>
  content.flatMap((c) => (c.type === type ? [c.text] : [])).join("");

export function answerOfResult(r: LanguageModelV4GenerateResult): Answer {
  const text = join(r.content, "text");
  const reasoning = join(r.content, "reasoning");
  const toolCalls = r.content.flatMap((c) => (c.type === "tool-call" && !c.providerExecuted ? [{ id: c.toolCallId, type: "function" as const, function: { name: c.toolName, arguments: c.input } }] : []));
  return { text: text === "" && toolCalls.length > 0 ? null : text, ...(reasoning ? { reasoning } : {}), toolCalls, finishReason: TO_OPENAI[r.finishReason.unified], usage: usageOf(r.usage) };
}

/** Each text (or reasoning) part's text after the hooks: the hooked join mapped back onto the parts. */
function textsAfter(content: readonly LanguageModelV4Content[], type: "text" | "reasoning", hooked: string): Map<number, string> {
  const at = content.flatMap((c, i) => (c.type === type ? [i] : []));
  const texts = splitBack(at.map((i) => (content[i] as { text: string }).text), hooked);
  return new Map(at.map((i, k) => [i, texts[k]!]));
}

/**
 * The caller's result: the model's own, part for part (each text and reasoning part with
 * its provider metadata: signatures, item ids, redacted reasoning), with only the text the
 * hooks changed rewritten in the parts it came from (see splitBack). What hooks never see
 * (sources, files, provider-executed tools, metadata) is as the model returned it. `real`
 * is absent when a hook served the answer.
 */
export function resultOf(answer: Answer, real: LanguageModelV4GenerateResult | undefined, modelId: string): LanguageModelV4GenerateResult {
  if (!real) {
    const content: LanguageModelV4Content[] = [
      ...(answer.reasoning ? [{ type: "reasoning" as const, text: answer.reasoning }] : []),
      ...(answer.text ? [{ type: "text" as const, text: answer.text }] : []),
      ...answer.toolCalls.map((c) => ({ type: "tool-call" as const, toolCallId: c.id, toolName: c.function.name, input: c.function.arguments })),
    ];
    return { content, finishReason: finishOf(answer.finishReason), usage: sdkUsage(answer.usage), warnings: [], response: { modelId } };
  }
  const original = real.content;
  const text = textsAfter(original, "text", answer.text ?? "");
  const reasoning = textsAfter(original, "reasoning", answer.reasoning ?? "");
  const calls = new Map(answer.toolCalls.map((c) => [c.id, c]));
  const content: LanguageModelV4Content[] = [];
  for (const [i, c] of original.entries()) {
    const now = c.type === "text" ? text.get(i) : c.type === "reasoning" ? reasoning.get(i) : undefined;
    if (now !== undefined) { content.push(now === (c as { text: string }).text ? c : { ...c, text: now } as LanguageModelV4Content); continue; }
    if (c.type !== "tool-call" || c.providerExecuted) { content.push(c); continue; }
    const call = calls.get(c.toolCallId);
    if (!call) continue;
    calls.delete(c.toolCallId);
    content.push(call.function.name === c.toolName && call.function.arguments === c.input ? c : { ...c, toolName: call.function.name, input: call.function.arguments });
  }
  // Text a hook wrote where the model gave none.
  if (!text.size && answer.text) content.push({ type: "text", text: answer.text });
  if (!reasoning.size && answer.reasoning) content.unshift({ type: "reasoning", text: answer.reasoning });
  for (const c of calls.values()) content.push({ type: "tool-call", toolCallId: c.id, toolName: c.function.name, input: c.function.arguments });
  return { ...real, content, finishReason: finishOf(answer.finishReason, real.finishReason) };
}
