/**
 * One boundary call (abi/README.md §4.3): fix identity, before stage, final
 * check, the real operation (hooks never get it), after stage on a working view,
 * error / finally. Every ending is a returned value.
 */
import { operationCancelled } from "../errors/call-errors.js";
import { SluiceError, type ErrorData } from "../errors/sluice-error.js";
import type { Checked } from "../pipeline/result.js";
import { validatePayload } from "../pipeline/validators.js";
import type { MatchTarget } from "../pipeline/bindings.js";
import type { PointName } from "../pipeline/points.js";
import type { StageResult } from "../pipeline/run-steps.js";
import type { BoundaryOptions, BoundaryResult, CallContext, ExecutionFacts, HookTrace, OperationContext } from "../pipeline/call-types.js";
import type { EndPhase, OperationStages, StageRunner } from "./stages.js";
import { withKeys } from "../objects/with-keys.js";

export interface OperationSpec<Real, Out> {
  operation: "chat" | "tool" | "embedding";
  ctx: CallContext;
  before: PointName;
  after: PointName;
  payload: Record<string, unknown>;
  target: MatchTarget;
  callId?: string;
  /** The service's last word on the final input; cannot be disabled. */
  finalCheck: (input: Record<string, unknown>) => Checked;
  /** Turns a short-circuit result into what the operation would have returned. */
  served: (result: unknown, input: Record<string, unknown>) => { ok: true; real: Real } | { ok: false; error: ErrorData };
  execute: (input: Record<string, unknown>, op: OperationContext) => Promise<Real>;
  /** Facts the host checks on the real result (embedding count and dimension). */
  checkReal?: (real: Real, input: Record<string, unknown>) => Checked;
  afterPayload: (input: Record<string, unknown>, real: Real, durationMs: number, artifacts: readonly Record<string, unknown>[]) => Record<string, unknown>;
  /** `seen`: the payload the after stage was given (what `afterPayload` made), so an output need not derive it again. */
  output: (after: Record<string, unknown>, real: Real, seen: Record<string, unknown>) => Out;
  /**
   * Tools: the after payload of an operation that failed (real status `failed`). When
   * given, the after stage runs on it before operation.error: its hooks may change the
   * view of the failure, never the status or the error.
   */
  failedAfterPayload?: (input: Record<string, unknown>, error: ErrorData, durationMs: number, artifacts: readonly Record<string, unknown>[]) => Record<string, unknown>;
  options?: BoundaryOptions;
  /** Set by resume (host/engine/resume.ts): the real work is done; only the after processing runs, on this. */
  resumed?: ResumePoint<Real>;
}

/** Where a resumed operation picks up: the stored real result and what its before stage left. */
export interface ResumePoint<Real> {
  real: Real;
  afterPayload: Record<string, unknown>;
  before: StageResult;
  facts: Pick<ExecutionFacts, "revision" | "called" | "realStatus" | "attempts" | "shortCircuitedBy">;
}

export async function runOperation<Real, Out>(runner: StageRunner, spec: OperationSpec<Real, Out>): Promise<BoundaryResult<Out>> {
  const t0 = performance.now();
  const stages = runner.begin(spec.ctx, spec.target, spec.callId);
  const facts: ExecutionFacts = { operationId: stages.operationId, revision: stages.revision, called: false, realStatus: "not_started", attempts: 0, idempotencyKey: stages.operationId, durationMs: 0 };
  const hooks: HookTrace[] = [];
  const annotations: Record<string, unknown> = {};
  const record = (point: PointName, r: StageResult): StageResult => {
    for (const step of r.reports) { hooks.push(withKeys(step, { point })); Object.assign(annotations, step.annotations); }
    return r;
  };
  const artifacts: Record<string, unknown>[] = [];
  const artifact = (a: Record<string, unknown>): void => { artifacts.push(structuredClone(a)); facts.artifacts = artifacts; };
  let failedView: Out | undefined;
  const finish = async (phase: EndPhase, error: ErrorData | null, outcome: string): Promise<BoundaryResult<Out>> => {
    await closeOperation(stages, { operation: spec.operation, t0, facts, hooks, record }, phase, error, outcome, out);
    return error
      ? { ok: false, error: new SluiceError(error.code, error.message, error.details ?? {}), facts, hooks, annotations, ...(failedView !== undefined ? { output: failedView } : {}) }
      : { ok: true, output: out!, facts, hooks, annotations };
  };
  let out: Out | undefined;
  const afterStage = async (before: StageResult, real: Real, payload: Record<string, unknown>): Promise<BoundaryResult<Out>> => {
    const after = record(spec.after, await stages.runAfter(spec.after, payload, before));
    if (after.failure) { const failure = cancellation(after.failure, stages.signal); return finish("after", failure, isCancel(failure) ? "cancelled" : "failed"); }
    if (after.stop?.kind === "block") return finish("after", stopError("HOOK_BLOCKED", after.stop), "blocked");
    out = spec.output(after.payload, real, payload);
    return finish(null, null, facts.shortCircuitedBy ? "short_circuited" : "succeeded");
  };

  // A failed operation's after stage: the view of the failure may change; its failure or block leaves no view, and the error stands.
  const failedAfter = async (before: StageResult, payload: Record<string, unknown>): Promise<void> => {
    const after = record(spec.after, await stages.runAfter(spec.after, payload, before));
    if (!after.failure && !after.stop) failedView = spec.output(after.payload, undefined as Real, payload);
  };

  const unrecorded = await stages.opened(spec.operation, spec.before, spec.after);
  if (unrecorded) return finish(spec.resumed ? "after" : "before", unrecorded, "failed");
  if (spec.resumed) {
    Object.assign(facts, spec.resumed.facts, { resumedRevision: stages.revision, realResult: spec.resumed.real });
    return afterStage(spec.resumed.before, spec.resumed.real, spec.resumed.afterPayload);
  }

  const valid = validatePayload(spec.before, spec.payload);
  if (!valid.ok) return finish("before", valid.error, "failed");

  const before = record(spec.before, await stages.run(spec.before, spec.payload));
  if (before.failure) { const failure = cancellation(before.failure, stages.signal); return finish("before", failure, isCancel(failure) ? "cancelled" : "failed"); }
  if (before.stop?.kind === "reject") return finish("before", stopError("HOOK_REJECTED", before.stop), "rejected");
  const input = before.payload;

  let real: Real;
  if (before.stop?.kind === "short_circuit") {
    const served = spec.served(before.stop.result, input);
    if (!served.ok) return finish("before", served.error, "failed");
    real = served.real;
    facts.shortCircuitedBy = before.stop.bindingId;
  } else {
    const checked = spec.finalCheck(input);
    if (!checked.ok) return finish("before", checked.error, "failed");
    const attempts = 1 + Math.max(0, spec.options?.retries ?? 0);
    let lastError: ErrorData | undefined;
    // Recorded before the call: a crash from here on leaves "running", which recovery turns into "unknown".
    const refused = await stages.calling(spec.before, input);
    if (refused) return finish("before", refused, "failed");
    facts.called = true;
    facts.realStatus = "running";
    for (facts.attempts = 1; facts.attempts <= attempts; facts.attempts++) {
      if (stages.signal.aborted) { lastError = cancelled(stages.signal); break; }
      try {
        real = await abortable(spec.execute(input, { signal: stages.signal, idempotencyKey: facts.idempotencyKey, attempt: facts.attempts, operationId: facts.operationId, artifact }), stages.signal);
        lastError = undefined;
        break;
      } catch (err) {
        lastError = stages.signal.aborted ? cancelled(stages.signal) : { code: "OPERATION_FAILED", message: `${spec.operation} operation failed: ${(err as Error)?.message ?? String(err)}`, details: { cause: err } };
        // Cancelled: no further attempt starts, so none is counted.
        if (stages.signal.aborted) break;
      }
    }
    facts.attempts = Math.min(facts.attempts, attempts);
    if (lastError) {
      facts.realStatus = isCancel(lastError) ? "unknown" : "failed";
      if (facts.realStatus === "failed" && spec.failedAfterPayload) await failedAfter(before, spec.failedAfterPayload(input, lastError, performance.now() - t0, artifacts));
      return finish("operation", lastError, isCancel(lastError) ? "cancelled" : "failed");
    }
    facts.realStatus = "succeeded";
    const realChecked = spec.checkReal?.(real!, input);
    if (realChecked && !realChecked.ok) return finish("operation", realChecked.error, "failed");
  }
  facts.realResult = real!;

  const afterPayload = spec.afterPayload(input, real!, performance.now() - t0, artifacts);
  // The real result is recorded before any after hook runs: a crash from here on is resumable.
  await stages.called(spec.after, real!, afterPayload, before, facts);
  return afterStage(before, real!, afterPayload);
}

/** What {@link closeOperation} needs of the call it ends. */
export interface Closing {
  operation: "chat" | "tool" | "embedding";
  t0: number;
  facts: ExecutionFacts;
  hooks: readonly HookTrace[];
  record: (point: PointName, r: StageResult) => StageResult;
}

/**
 * The ending of every boundary call, streamed or not: operation.error (on an error) and
 * operation.finally, the duration, the record's ending (a write that fails is kept in
 * `facts.recordError`, never hiding the outcome), then the stages let go.
 */
export async function closeOperation(stages: OperationStages, c: Closing, phase: EndPhase, error: ErrorData | null, outcome: string, output: unknown): Promise<void> {
  const { facts } = c;
  if (error) {
    c.record("operation.error", await stages.diagnostic("operation.error", { operation: c.operation, phase: phase ?? "operation", error: { code: error.code, message: error.message }, real_status: facts.realStatus, reached_binding: c.hooks.at(-1)?.bindingId ?? null }));
  }
  c.record("operation.finally", await stages.diagnostic("operation.finally", { operation: c.operation, real_status: facts.realStatus, outcome }));
  facts.durationMs = performance.now() - c.t0;
  const unkept = await stages.closed(phase, error, outcome, facts, output);
  if (unkept) facts.recordError = unkept;
  stages.end();
}

function stopError(code: "HOOK_REJECTED" | "HOOK_BLOCKED", stop: { bindingId: string; code?: string; reason?: string }): ErrorData {
  return { code, message: `${code === "HOOK_REJECTED" ? "rejected" : "blocked"} by binding ${stop.bindingId}: ${stop.code} ${stop.reason ?? ""}`.trim(), details: { bindingId: stop.bindingId, hookCode: stop.code, reason: stop.reason } };
}

export function cancelled(signal: AbortSignal): ErrorData {
  const deadline = signal.reason instanceof DOMException && signal.reason.name === "TimeoutError";
  return deadline
    ? { code: "DEADLINE_EXCEEDED", message: "the operation's deadline passed" }
    : operationCancelled();
}

/**
 * Settles as soon as the signal aborts, even if the operation ignores it. The work's own
 * ending is still observed: a work that rejects once the caller has gone (an upstream request
 * aborted with the client's disconnect) would otherwise be an unhandled rejection, which ends
 * the process.
 */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * A stage ended by the operation's signal reports what ended it: a deadline is
 * DEADLINE_EXCEEDED in every phase (the executors only know "cancelled").
 */
export function cancellation(error: ErrorData, signal: AbortSignal): ErrorData {
  return error.code === "CALL_CANCELLED" && signal.aborted ? withKeys(cancelled(signal), error.details ? { details: error.details } : {}) : error;
}

function isCancel(error: ErrorData): boolean {
  return error.code === "CALL_CANCELLED" || error.code === "DEADLINE_EXCEEDED";
}
