/**
 * What the three adapters' params mappings share (ai-sdk, langchain and openai-agents
 * `params.ts`): the refusal of a hook's change an adapter cannot carry, the tool choice's
 * function form as the host shows it, and the params whose value is the same on both sides.
 */
import { SluiceError } from "../../errors/sluice-error.js";

/** PATCH_FORBIDDEN naming the param: a hook's change is never dropped silently. */
export function refuseParam(adapter: string, param: string, why: string): never {
  throw new SluiceError("PATCH_FORBIDDEN", `a hook set params.${param}, which the ${adapter} adapter cannot pass to the model: ${why}`, { path: `/params/${param}` });
}

/** The tool choice `{ type: "function", function: { name } }` as the host shows a named tool. */
export function functionChoice(name: string): { type: "function"; function: { name: string } } {
  return { type: "function", function: { name } };
}

/** The tool's name when `v` is the function form of a tool choice; undefined otherwise. */
export function functionChoiceName(v: unknown): string | undefined {
  const c = v as { type?: unknown; function?: { name?: unknown } } | null | undefined;
  return c?.type === "function" && typeof c.function?.name === "string" ? c.function.name : undefined;
}

/** Writes params whose value is the same on both sides (`[framework name, host name]`): what a hook removed is removed. */
export function writeSame(target: Record<string, unknown>, same: readonly (readonly [string, string])[], params: Record<string, unknown>): void {
  for (const [from, to] of same) {
    if (params[to] === undefined) delete target[from];
    else target[from] = params[to];
  }
}
