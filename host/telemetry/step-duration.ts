import type { StepReport } from "../pipeline/run-steps.js";

/**
 * How long a hook ran, in ms. A timed-out guest is reported with no duration (its stage is
 * re-run with the step marked failed), but it ran for its limit, and that is what latency
 * histograms and spans should show.
 */
export function stepDurationMs(step: StepReport): number {
  const limit = step.error?.code === "GUEST_TIMEOUT" ? step.error.details?.limitMs : undefined;
  return step.durationMs === 0 && typeof limit === "number" ? limit : step.durationMs;
}
