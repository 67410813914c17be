/** An AI SDK generate result as the host's answer, and the result the caller gets after the hooks. */
import type { LanguageModelV4Content, LanguageModelV4FinishReason, LanguageModelV4GenerateResult, LanguageModelV4Usage } from "@ai-sdk/provider";
import type { Answer, Usage } from "../shared/host-chat.js";

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

/**
 * The caller's result: the hooked answer's text, reasoning and tool calls in place of the
 * model's; what hooks never see (sources, files, provider-executed tools, metadata) as the
 * model returned it. `real` is absent when a hook served the answer.
 */
export function resultOf(answer: Answer, real: LanguageModelV4GenerateResult | undefined, modelId: string): LanguageModelV4GenerateResult {
  const original = real?.content ?? [];
  const firstText = original.find((c) => c.type === "text");
  // Provider metadata (a reasoning signature, say) stays with the text it came with.
  const firstReasoning = original.find((c) => c.type === "reasoning");
  const calls = new Map(original.flatMap((c) => (c.type === "tool-call" ? [[c.toolCallId, c] as const] : [])));
  const content: LanguageModelV4Content[] = [
    ...(answer.reasoning ? [{ ...(firstReasoning ?? {}), type: "reasoning" as const, text: answer.reasoning }] : []),
    ...original.filter((c) => c.type !== "text" && c.type !== "reasoning" && !(c.type === "tool-call" && !c.providerExecuted)),
    ...(answer.text ? [{ ...(firstText ?? {}), type: "text" as const, text: answer.text }] : []),
    ...answer.toolCalls.map((c) => ({ ...(calls.get(c.id) ?? {}), type: "tool-call" as const, toolCallId: c.id, toolName: c.function.name, input: c.function.arguments })),
  ];
  if (!real) return { content, finishReason: finishOf(answer.finishReason), usage: sdkUsage(answer.usage), warnings: [], response: { modelId } };
  return { ...real, content, finishReason: finishOf(answer.finishReason, real.finishReason) };
}
