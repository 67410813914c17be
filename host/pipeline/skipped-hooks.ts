/**
 * The bindings at a point that did not run for an operation, and why: what an operator
 * reads to answer "why did my hook not run on this call?". Plain data, kept with the
 * operation's record.
 */
import { matches, type Binding, type MatchTarget } from "./bindings.js";
import type { PointName } from "./points.js";
import type { ErrorCode } from "../errors/codes.js";

/**
 * `disabled`: the binding would have matched the call but is disabled in the release the
 * operation ran on. `not_matched`: its match (tools, models, purposes, instances, spaces)
 * does not admit the call, enabled or not. `quarantined`: it matched, and its plugin was
 * quarantined, so its step failed without running (its failure policy decided).
 */
export type SkipReason = "disabled" | "quarantined" | "not_matched";

/** One binding that did not run for an operation, and why; an operation record keeps them as `skipped`. */
export interface SkippedHook {
  point: PointName;
  bindingId: string;
  hookRef: string;
  reason: SkipReason;
}

/** The error code a quarantined plugin's step is pre-failed with (reliability/plugin-quarantine.ts): the step never ran. */
export const QUARANTINED_CODE = "PLUGIN_QUARANTINED" satisfies ErrorCode;

/**
 * The bindings of `bindings` (a release's at `point`) that a plan for `target` leaves out
 * because they are disabled or do not match. A binding folded into a duplicate of itself
 * (see matchBindings) is not listed: its hook ran.
 * @example skippedAtPlan(release.byPoint.get("tool.before") ?? [], "tool.before", { toolId: "search", instance: "main", spaceId: "s1" })
 */
export function skippedAtPlan(bindings: readonly Binding[], point: PointName, target: MatchTarget): SkippedHook[] {
  const skipped: SkippedHook[] = [];
  for (const b of bindings) {
    if (b.point !== point) continue;
    if (!matches(b.match, target)) skipped.push({ point, bindingId: b.id, hookRef: b.hookRef, reason: "not_matched" });
    else if (!b.enabled && !b.mandatory) skipped.push({ point, bindingId: b.id, hookRef: b.hookRef, reason: "disabled" });
  }
  return skipped;
}

/** The steps of a stage's reports that were pre-failed because their plugin is quarantined. */
export function skippedByQuarantine(point: PointName, reports: readonly { bindingId: string; hookRef: string; error?: { code: string } }[]): SkippedHook[] {
  const skipped: SkippedHook[] = [];
  for (const r of reports) if (r.error?.code === QUARANTINED_CODE) skipped.push({ point, bindingId: r.bindingId, hookRef: r.hookRef, reason: "quarantined" });
  return skipped;
}
