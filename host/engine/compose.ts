import type { OperationStages } from "./stages.js";

/**
 * What records, observes or otherwise watches an operation: takes its stages and returns
 * stages of the same shape that do the same and more (as undici composes interceptors).
 */
export type StagesWrapper = (stages: OperationStages) => OperationStages;

/**
 * The one place wrappers meet (OperationEngine.begin): applied inside out, so the first
 * is closest to the hooks and the last is what the boundary sees.
 */
export function composeStages(base: OperationStages, wrappers: readonly (StagesWrapper | undefined)[]): OperationStages {
  let stages = base;
  for (const wrap of wrappers) if (wrap) stages = wrap(stages);
  return stages;
}
