/**
 * Where a rollback goes. The activation history is replayed as a stack: an activation
 * pushes its revision, a rollback pops back to its target. Rolling back twice after
 * activating 1, 2, 3 therefore lands on 2, then on 1, instead of flipping between 2 and 3.
 */
import type { ActivationRecord } from "./records.js";

/** The stack of revisions the history leaves, oldest first; the last one is active. */
export function activationStack(history: readonly ActivationRecord[]): number[] {
  const stack: number[] = [];
  for (const a of history) {
    if (a.reason === "rollback") {
      const at = stack.lastIndexOf(a.revision);
      if (at >= 0) { stack.length = at + 1; continue; }
    }
    stack.push(a.revision);
  }
  return stack;
}

/** The revision a plain rollback activates, or undefined when there is nothing earlier. */
export function rollbackTarget(history: readonly ActivationRecord[]): number | undefined {
  const stack = activationStack(history);
  return stack.length >= 2 ? stack[stack.length - 2] : undefined;
}
