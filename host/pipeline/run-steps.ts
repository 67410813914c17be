/**
 * The pipeline core: runs the hooks of one stage in order over a working copy, applying
 * each validated outcome before the next hook sees it. Pure and thread-agnostic: a worker
 * runs it over consecutive guest hooks (one thread hop per stage), the main thread over
 * in-process hooks, with the same rules.
 */
import type { SkippedHook } from "./skipped-hooks.js";
import { ABI_VERSION_STRING } from "../../abi/version.js";
import type { HookContext, Outcome, OutcomeKind, RequestEnvelope } from "../../abi/envelope.js";
import type { ErrorData } from "../errors/sluice-error.js";
import type { EffectiveFailurePolicy } from "./failure-policy.js";
import { checkObserveOnly, checkOutcome, checkStreamedAnswer, chunkEmission } from "./outcome-rules.js";
import { applyPatch, applyRedaction } from "./patch.js";
import { getPoint, type PointName } from "./points.js";
import { readView } from "./read-view.js";
import { presentToV10, type LegacyPresentation } from "./legacy-view.js";
import { schemaProblem } from "./validators.js";
import { digestOf } from "./digest.js";
import { withKeys } from "../objects/with-keys.js";
import { joinLogs, type GuestLogs } from "./guest-logs.js";

export interface StepSpec {
  bindingId: string;
  hookRef: string;
  policy: EffectiveFailurePolicy;
  observeOnly: boolean;
  config: unknown;
  /** JSON Pointer prefixes of the payload the plugin may read; absent = all of it. */
  read?: readonly string[];
  /** The point's restricted fields its grant does not name: never sent (points.ts `restricted`). */
  withheld?: readonly string[];
  /** JSON Pointer prefixes it may patch; absent = what the point allows. */
  write?: readonly string[];
  /** The extension (pre/post pair) the binding belongs to; carries are keyed by it. Absent: the binding alone. */
  pair?: string;
  /** What this extension's before hook handed to its after (and chunk) hooks. */
  carry?: unknown;
  /** The answer was streamed already and this after hook's chunk twin rewrote it: it judges read-only (engine/stream-rewrite.ts). */
  streamed?: boolean;
  /** The ABI minor the guest was built for, when older than the host's: it is shown payloads as that minor reads them (legacy-view.ts). */
  abiMinor?: number;
}

/** `fuel`: what a guest hook used of its budget (in-process hooks are not metered and leave it out); `logs`: what it logged, absent when nothing. */
export type InvokeReport =
  | { ok: true; outcome: Outcome; durationMs: number; fuel?: number; logs?: GuestLogs }
  | { ok: false; error: ErrorData; durationMs: number; fuel?: number; logs?: GuestLogs };

export type Invoke = (index: number, request: RequestEnvelope) => InvokeReport | Promise<InvokeReport>;

export interface StepReport {
  bindingId: string;
  hookRef: string;
  outcome: OutcomeKind | "failed" | "skipped";
  durationMs: number;
  /** Fuel the guest used (abi/README.md §11); absent for in-process hooks and steps that did not run. */
  fuel?: number;
  /** The guest's kept log lines (pipeline/guest-logs.ts); absent when it logged nothing. Guest text: see docs/guest-logs.md for where it may go. */
  logs?: GuestLogs;
  error?: ErrorData;
  annotations?: Record<string, unknown>;
  /** Digest of the patch (or redaction) this hook returned, when it changed the payload (not at chunk points): the content hash here, keyed by the host before anyone sees it. */
  patchDigest?: string;
  /** Digest of the payload after this hook, when it changed it (keyed by the host like patchDigest); otherwise the payload passed through unchanged. */
  outputDigest?: string;
}

export type Stop =
  | { kind: "reject" | "block"; bindingId: string; code: string; reason: string }
  | { kind: "ask"; bindingId: string; code?: string; reason: string }
  | { kind: "short_circuit"; bindingId: string; result: unknown };

export interface StageInput {
  point: PointName;
  context: Omit<HookContext, "binding_id" | "point">;
  payload: Record<string, unknown>;
  steps: readonly StepSpec[];
  /** Chunk stages: the tail each step held at the previous chunk. */
  holds?: readonly string[];
  /** Steps already known to have failed (a timeout that ended an earlier attempt of this stage). */
  failed?: Readonly<Record<number, ErrorData>>;
}

export interface StageResult {
  payload: Record<string, unknown>;
  reports: StepReport[];
  /** Set when a hook rejected, blocked, asked or short-circuited: later hooks did not run. */
  stop?: Stop;
  /** Set when a fail-closed hook failed (HOOK_FAILED): later hooks did not run. */
  failure?: ErrorData;
  /** Index of the last step that ran (for symmetric unwinding). */
  reached: number;
  /** carry values by pair (extension), for the paired chunk and after hooks. */
  carries: Record<string, unknown>;
  /** Chunk stages: each step's held tail after this chunk. */
  holds?: string[];
  /** The bindings at this point that did not run for the operation, and why (set by the engine, kept in its record). */
  skipped?: readonly SkippedHook[];
}

export async function runSteps(input: StageInput, invoke: Invoke): Promise<StageResult> {
  const { point, steps } = input;
  const chunked = getPoint(point).stage === "chunk";
  const holds = chunked ? steps.map((_, i) => input.holds?.[i] ?? "") : undefined;
  let payload = input.payload;
  const reports: StepReport[] = [];
  const carries: Record<string, unknown> = {};
  const result = (extra: Partial<StageResult> = {}): StageResult => ({ payload, reports, reached: reports.length - 1, carries, ...(holds ? { holds } : {}), ...extra });

  for (const [i, step] of steps.entries()) {
    const seen = chunked ? withKeys(payload, { delta: holds![i]! + String(payload.delta ?? "") }) : payload;
    const report: StepReport = { bindingId: step.bindingId, hookRef: step.hookRef, outcome: "failed", durationMs: 0 };
    reports.push(report);
    const known = input.failed?.[i];
    const once = async (view: Record<string, unknown>): Promise<Ran> => {
      const invoked: InvokeReport = known
        ? { ok: false, error: known, durationMs: 0 }
        : await invoke(i, {
          abi: ABI_VERSION_STRING,
          point,
          context: withKeys(input.context, { binding_id: step.bindingId, point }),
          payload: readView(view, step.read, step.withheld),
          config: step.config,
          ...(step.carry !== undefined ? { carry: step.carry } : {}),
        });
      return { invoked, applied: invoked.ok ? apply(point, step, view, invoked.outcome, i, holds) : invoked };
    };
    const legacy = step.abiMinor === 0 ? presentToV10(point, seen) : undefined;
    const { invoked, applied } = legacy ? await runPresented(point, legacy, once) : await once(seen);
    report.durationMs = invoked.durationMs;
    if (invoked.fuel !== undefined) report.fuel = invoked.fuel;
    if (invoked.logs !== undefined) report.logs = invoked.logs;
    // Cancellation ends the stage whatever the policy: the caller no longer wants the operation.
    if (!invoked.ok && invoked.error.code === "CALL_CANCELLED") {
      report.error = invoked.error;
      return result({ failure: invoked.error });
    }
    if (!applied.ok) {
      report.error = applied.error;
      if (step.policy === "fail-closed") {
        return result({ failure: { code: "HOOK_FAILED", message: `hook ${step.hookRef} (binding ${step.bindingId}) failed at ${point}: ${applied.error.message}`, details: { bindingId: step.bindingId, hookRef: step.hookRef, point, cause: applied.error } } });
      }
      if (chunked) { holds![i] = ""; payload = seen; }
      continue;
    }
    const outcome = invoked.ok ? invoked.outcome : undefined!;
    report.outcome = outcome.kind;
    if (outcome.annotations) report.annotations = outcome.annotations;
    if ("carry" in outcome && outcome.carry !== undefined) carries[step.pair ?? step.bindingId] = outcome.carry;
    if (applied.stop) return result({ stop: applied.stop });
    // Digested here, where the patch is known, so the audit can chain each hook's input and
    // output without the payloads; only hooks that changed something pay for it.
    if (!chunked && (outcome.kind === "patch_input" || outcome.kind === "patch_output" || outcome.kind === "redact")) {
      report.patchDigest = digestOf(outcome.kind === "redact" ? outcome.content : outcome.patch);
      report.outputDigest = digestOf(applied.payload);
    }
    payload = applied.payload;
  }
  return result();
}

type Applied = { ok: true; payload: Record<string, unknown>; stop?: Stop } | { ok: false; error: ErrorData };
type Ran = { invoked: InvokeReport; applied: Applied };

/**
 * One step of a guest built for an older minor: invoked once per view it is shown, each
 * outcome applied to its view under the point's rules, the results written back into the
 * current payload (which must still pass the point's schema). The first failure or stop
 * ends it; its duration and fuel are those of every invocation.
 */
async function runPresented(point: PointName, legacy: LegacyPresentation, once: (view: Record<string, unknown>) => Promise<Ran>): Promise<Ran> {
  const results: Record<string, unknown>[] = [];
  let durationMs = 0;
  let fuel: number | undefined;
  let logs: GuestLogs | undefined;
  let outcome: Outcome = { kind: "continue" };
  const annotations: Record<string, unknown> = {};
  for (const view of legacy.views) {
    const ran = await once(view);
    durationMs += ran.invoked.durationMs;
    if (ran.invoked.fuel !== undefined) fuel = (fuel ?? 0) + ran.invoked.fuel;
    logs = joinLogs(logs, ran.invoked.logs);
    const spent = { durationMs, ...(fuel !== undefined ? { fuel } : {}), ...(logs ? { logs } : {}) };
    if (!ran.invoked.ok || !ran.applied.ok || ran.applied.stop) return { invoked: withKeys(ran.invoked, spent), applied: ran.applied };
    const o = ran.invoked.outcome;
    // A continue keeps the outcome so far, but not without its carry: the guest's after hook is owed it.
    if (o.kind !== "continue") outcome = o;
    else if (o.carry !== undefined) outcome = withKeys(outcome, { carry: o.carry }) as Outcome;
    Object.assign(annotations, o.annotations);
    results.push(ran.applied.payload);
  }
  const payload = legacy.back(results);
  const problem = schemaProblem(point, payload);
  const merged = withKeys(outcome, Object.keys(annotations).length ? { annotations } : {}) as Outcome;
  return {
    invoked: { ok: true, outcome: merged, durationMs, ...(fuel !== undefined ? { fuel } : {}), ...(logs ? { logs } : {}) },
    applied: problem === null ? { ok: true, payload } : { ok: false, error: { code: "PATCH_INVALID", message: `${point} payload fails the point's schema once the 1.0 guest's changes are written back: ${problem}`, details: { point } } },
  };
}

function apply(point: PointName, step: StepSpec, payload: Record<string, unknown>, outcome: Outcome, i: number, holds: string[] | undefined): Applied {
  const allowed = checkOutcome(point, outcome);
  if (!allowed.ok) return allowed;
  if (step.observeOnly) {
    const observed = checkObserveOnly(outcome);
    if (!observed.ok) return observed;
  }
  if (step.streamed) {
    const judged = checkStreamedAnswer(outcome, step.bindingId);
    if (!judged.ok) return judged;
  }
  const grant = step.write ? { write: step.write } : undefined;
  switch (outcome.kind) {
    case "continue":
    case "redact":
      if (holds) {
        const emitted = chunkEmission(String(payload.delta), payload.is_last === true, outcome);
        if (!emitted.ok) return emitted;
        holds[i] = emitted.hold;
        return { ok: true, payload: withKeys(payload, { delta: emitted.emit }) };
      }
      return outcome.kind === "continue" ? { ok: true, payload } : applyRedaction(point, payload, outcome.content, grant);
    case "patch_input":
    case "patch_output":
      return applyPatch(point, payload, outcome.patch, grant);
    case "reject":
    case "block":
      return { ok: true, payload, stop: { kind: outcome.kind, bindingId: step.bindingId, code: outcome.code, reason: outcome.reason } };
    case "ask":
      return { ok: true, payload, stop: { kind: "ask", bindingId: step.bindingId, reason: outcome.reason, ...(outcome.code !== undefined ? { code: outcome.code } : {}) } };
    case "short_circuit":
      return { ok: true, payload, stop: { kind: "short_circuit", bindingId: step.bindingId, result: outcome.result } };
  }
}
