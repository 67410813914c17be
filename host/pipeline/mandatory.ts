/**
 * Platform rules have the last word (abi/README.md §4.3: "platform rules and the final check cannot
 * be disabled; priority cannot bypass them"). A mandatory binding runs first in its stage,
 * so it can refuse before anything else runs (a cache's short-circuit included); when a
 * later hook then changes the payload, the mandatory binding runs again on the final
 * payload, so its verdict holds on the input that reaches the operation (before points)
 * and on the view that reaches the caller (after points). These pure functions decide
 * which bindings run again and join the two passes; engine/stage.ts calls them.
 */
import type { Binding } from "./bindings.js";
import type { StageResult } from "./run-steps.js";
import { withKeys } from "../objects/with-keys.js";

/**
 * The mandatory bindings that must run again: those that ran in the first pass and were
 * followed by a hook that changed the payload. None when the stage stopped or failed
 * (nothing crosses the boundary then), and none at chunk points, where mandatory bindings
 * run last instead (see {@link chunkOrder}).
 * @example recheckOf(hooks, firstPass) // [pathGuard] when a later hook patched /arguments
 */
export function recheckOf<H extends { binding: Binding }>(hooks: readonly H[], first: StageResult): H[] {
  if (first.stop || first.failure) return [];
  // One report per hook that ran, in order: a report's index is its hook's index.
  const lastChange = first.reports.findLastIndex((r) => r.patchDigest !== undefined);
  return hooks.filter((h, i) => h.binding.mandatory && i < lastChange && first.reports[i] !== undefined);
}

/** The stage's result after the recheck: the second pass decides; both passes' reports are kept, in order. */
export function joinRecheck(first: StageResult, second: StageResult): StageResult {
  return withKeys(second, {
    reports: [...first.reports, ...second.reports],
    // Unwinding counts the before hooks of the ordered list: every one of them was reached.
    reached: first.reached,
    carries: withKeys(first.carries, second.carries),
  });
}

/**
 * The order of a chunk stage: what a chunk hook emits is what the next one receives, so
 * the text that crosses the boundary is the last hook's emission. Mandatory chunk
 * bindings therefore run last, in their own order, whatever the order mode.
 */
export function chunkOrder(ordered: readonly Binding[]): Binding[] {
  return [...ordered.filter((b) => !b.mandatory), ...ordered.filter((b) => b.mandatory)];
}
