import type { HookTrace } from "../engine/call-types.js";

export type Print = (line: string) => void;

/** One line per hook decision: point, binding, outcome, time, and why when it failed. */
export function printHooks(print: Print, hooks: readonly HookTrace[]): void {
  for (const h of hooks) {
    const why = h.error ? `  ${h.error.code}: ${h.error.message}` : "";
    const notes = h.annotations ? `  ${JSON.stringify(h.annotations)}` : "";
    print(`    ${h.point.padEnd(22)} ${h.bindingId.padEnd(26)} ${h.outcome.padEnd(13)} ${h.durationMs.toFixed(2).padStart(7)} ms${why}${notes}`);
  }
}
