import { getPoint, type PointName } from "./points.js";

/** How a hook's failure (timeout, trap, invalid outcome) affects the operation. */
export type EffectiveFailurePolicy = "fail-closed" | "fail-open" | "diagnostic";

/**
 * The policy that applies when a binding's hook fails at `point`. At diagnostic-only
 * points (operation.error / finally) a failure is recorded and never fails the
 * operation, so error handling cannot recurse; an observe-only binding cannot change
 * the operation, so its failure cannot either; otherwise the binding's own policy.
 * @example effectiveFailurePolicy("operation.error", { failurePolicy: "fail-closed", observeOnly: false }) // "diagnostic"
 */
export function effectiveFailurePolicy(
  point: PointName,
  binding: { failurePolicy: "fail-closed" | "fail-open"; observeOnly: boolean },
): EffectiveFailurePolicy {
  if (getPoint(point).diagnosticOnly) return "diagnostic";
  if (binding.observeOnly) return "fail-open";
  return binding.failurePolicy;
}
