/**
 * Token counts as the hooks and the records see them, whichever naming the provider used:
 * the host's (`input_tokens`, `output_tokens`) or the OpenAI wire's (`prompt_tokens`,
 * `completion_tokens`, with cached and reasoning tokens in their details objects).
 */
const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.trunc(v) : undefined);
const sub = (v: unknown, key: string): unknown => (typeof v === "object" && v !== null ? (v as Record<string, unknown>)[key] : undefined);

export interface UsageView { input_tokens: number; output_tokens: number; total_tokens?: number; cached_tokens?: number; reasoning_tokens?: number }

/** The hooks' view of usage, in the host's names, whichever naming the provider used. */
export function usageView(usage: unknown): UsageView {
  const u = (typeof usage === "object" && usage !== null ? usage : {}) as Record<string, unknown>;
  const view: UsageView & Record<string, number> = { input_tokens: num(u.input_tokens) ?? num(u.prompt_tokens) ?? 0, output_tokens: num(u.output_tokens) ?? num(u.completion_tokens) ?? 0 };
  const extra = {
    total_tokens: num(u.total_tokens),
    cached_tokens: num(u.cached_tokens) ?? num(sub(u.prompt_tokens_details, "cached_tokens")) ?? num(sub(u.input_tokens_details, "cached_tokens")),
    reasoning_tokens: num(u.reasoning_tokens) ?? num(sub(u.completion_tokens_details, "reasoning_tokens")) ?? num(sub(u.output_tokens_details, "reasoning_tokens")),
  };
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) view[key] = value;
  return view;
}

