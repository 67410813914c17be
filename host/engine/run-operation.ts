/**
 * The one lifecycle of every operation (abi/README.md §4.3): fix identity, before stage,
 * final check, the real call (a strategy: once, streamed, or split across two requests;
 * hooks never get it), after stage on a working view, error / finally. Every ending is a
 * returned value, and every ending goes through `finish`.
 */
import { SluiceError, type ErrorData } from "../errors/sluice-error.js";
import type { Checked } from "../pipeline/result.js";
import { validatePayload } from "../pipeline/validators.js";
import type { MatchTarget } from "../pipeline/bindings.js";
import type { OperationKind, PointName } from "../pipeline/points.js";
import type { StageResult } from "../pipeline/run-steps.js";
import type { BoundaryResult, CallContext, HookTrace } from "./call-types.js";
import type { ExecutionFacts, RealStatus } from "../records/facts.js";
import type { AfterOptions, EndPhase, OperationStages, StageRunner } from "./stages.js";
import type { CallScope, RealCall } from "./real-call.js";
import { cancellation, outcomeOf, stopError } from "./endings.js";
import { thrownError } from "./thrown-error.js";
import { withKeys } from "../objects/with-keys.js";

export interface OperationSpec<Real, Out> {
  operation: OperationKind;
  ctx: CallContext;
  before: PointName;
  after: PointName;
  /** The before stage's payload; a function when reading the caller's input may throw (its throw is PAYLOAD_INVALID, recorded). */
  payload: Record<string, unknown> | (() => Record<string, unknown>);
  target: MatchTarget;
  callId?: string;
  /** The service's last word on the final input; cannot be disabled. */
  finalCheck: (input: Record<string, unknown>) => Checked;
  /** Turns a short-circuit result into what the operation would have returned, or refuses it. */
  served: (result: unknown, input: Record<string, unknown>) => { ok: true; real: Real } | { ok: false; error: ErrorData };
  /** How the real call is made. */
  call: RealCall<Real>;
  /** Facts the host checks on the real result (embedding count and dimension, a model's tool calls). */
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
  /** A split call whose caller runs the real call itself: what the first request answers while the operation awaits its result. */
  awaiting?: (input: Record<string, unknown>, facts: ExecutionFacts) => Out;
  /** The real call is over: only what follows it runs (a resume after a crash, a split call's result arriving). */
  resumed?: ResumePoint<Real>;
}

/** Where an operation picks up when its real call is already over: how it ended, and what its before stage left. */
export interface ResumePoint<Real> {
  /** A split call's result arriving (its own run going on), not a resume after a crash: the release it ran on is named only when it changed. */
  continues?: boolean;
  ending: { real: Real; afterPayload: Record<string, unknown> } | { error: ErrorData; realStatus: Extract<RealStatus, "failed" | "unknown">; input: Record<string, unknown>; durationMs: number };
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
  let phase: Exclude<EndPhase, null> = spec.resumed ? "after" : "before";
  let failedView: Out | undefined;
  let out: Out | undefined;
  let finishing = false;
  const finish = async (at: EndPhase, error: ErrorData | null): Promise<BoundaryResult<Out>> => {
    finishing = true;
    const outcome = error ? outcomeOf(error) : facts.shortCircuitedBy ? "short_circuited" : "succeeded";
    await closeOperation(stages, { operation: spec.operation, t0, facts, hooks, record }, at, error, outcome, out);
    return error
      ? { ok: false, error: new SluiceError(error.code, error.message, error.details ?? {}), facts, hooks, annotations, ...(failedView !== undefined ? { output: failedView } : {}) }
      : { ok: true, output: out!, facts, hooks, annotations };
  };
  const stageFailed = (at: Exclude<EndPhase, null>, failure: ErrorData) => finish(at, cancellation(failure, stages.signal));

  const afterStage = async (before: StageResult, real: Real, payload: Record<string, unknown>, options?: AfterOptions): Promise<BoundaryResult<Out>> => {
    const after = record(spec.after, await stages.runAfter(spec.after, payload, before, options));
    if (after.failure) return stageFailed("after", after.failure);
    if (after.stop?.kind === "block") return finish("after", stopError(after.stop));
    out = spec.output(after.payload, real, payload);
    return finish(null, null);
  };
  // The real call failed: for a tool, its after stage may change the view of the failure; its failure or block leaves no view, and the error stands.
  const failed = async (before: StageResult, input: Record<string, unknown>, error: ErrorData, realStatus: RealStatus, at: "operation" | "after", durationMs: number): Promise<BoundaryResult<Out>> => {
    facts.realStatus = realStatus;
    if (realStatus === "failed" && spec.failedAfterPayload) {
      const payload = spec.failedAfterPayload(input, error, durationMs, artifacts);
      const after = record(spec.after, await stages.runAfter(spec.after, payload, before));
      if (!after.failure && !after.stop) failedView = spec.output(after.payload, undefined as Real, payload);
    }
    return finish(at, error);
  };

  try {
    const unrecorded = await stages.opened(spec.operation, spec.before, spec.after);
    if (unrecorded) return await finish(phase, unrecorded);
    if (spec.resumed) {
      const { ending, before } = spec.resumed;
      Object.assign(facts, spec.resumed.facts, spec.resumed.continues && stages.revision === spec.resumed.facts.revision ? {} : { resumedRevision: stages.revision });
      if ("error" in ending) return await failed(before, ending.input, ending.error, ending.realStatus, "operation", ending.durationMs);
      facts.realResult = ending.real;
      return await afterStage(before, ending.real, ending.afterPayload);
    }

    const payload = typeof spec.payload === "function" ? spec.payload() : spec.payload;
    const valid = validatePayload(spec.before, payload);
    if (!valid.ok) return await finish("before", valid.error);

    const before = record(spec.before, await stages.run(spec.before, payload));
    if (before.failure) return await stageFailed("before", before.failure);
    if (before.stop?.kind === "reject" || before.stop?.kind === "ask") return await finish("before", stopError(before.stop));
    const input = before.payload;

    let served: { real: Real } | undefined;
    if (before.stop?.kind === "short_circuit") {
      const result = spec.served(before.stop.result, input);
      if (!result.ok) return await finish("before", result.error);
      served = { real: result.real };
      facts.shortCircuitedBy = before.stop.bindingId;
    } else {
      const checked = spec.finalCheck(input);
      if (!checked.ok) return await finish("before", checked.error);
      // Recorded before the call: a crash from here on leaves "running", which recovery turns into "unknown".
      const refused = await stages.calling(spec.before, input);
      if (refused) return await finish("before", refused);
      facts.called = true;
      facts.realStatus = "running";
    }

    phase = "operation";
    const scope: CallScope = {
      stages, facts, before, record, operation: spec.operation,
      op: (attempt) => ({ signal: stages.signal, idempotencyKey: facts.idempotencyKey, attempt, operationId: facts.operationId, artifact: (a) => { artifacts.push(structuredClone(a)); facts.artifacts = artifacts; } }),
    };
    const call = await spec.call.run(input, scope, served);
    if (call.kind === "awaiting") {
      // The caller runs the call and reports its result later, perhaps to another host: the record keeps what the after stage needs.
      const unkept = await stages.awaiting(spec.after, input, before);
      if (unkept) {
        facts.called = false;
        facts.realStatus = "not_started";
        return await finish("before", unkept);
      }
      stages.end();
      facts.durationMs = performance.now() - t0;
      return { ok: true, output: spec.awaiting!(input, facts), facts, hooks, annotations };
    }
    if (call.kind === "ended") {
      phase = call.phase;
      return await failed(before, input, call.error, call.realStatus, call.phase, performance.now() - t0);
    }
    const real = call.real;
    if (facts.called) facts.realStatus = "succeeded";
    const realChecked = spec.checkReal?.(real, input);
    if (realChecked && !realChecked.ok) return await finish("operation", realChecked.error);
    facts.realResult = real;

    phase = "after";
    const afterPayload = spec.afterPayload(input, real, performance.now() - t0, artifacts);
    // The real result is recorded before any after hook runs: a crash from here on is resumable.
    await stages.called(spec.after, real, afterPayload, before, facts);
    return await afterStage(before, real, afterPayload, call.readOnly && call.readOnly.size > 0 ? { readOnly: call.readOnly } : undefined);
  } catch (err) {
    if (finishing) throw err;
    // A throw while the caller's input is read is PAYLOAD_INVALID; any later one is a host failure. Either way the operation ends, recorded.
    return finish(phase, thrownError(err, phase === "before").toData());
  }
}

/** What {@link closeOperation} needs of the call it ends. */
export interface Closing {
  operation: OperationKind;
  t0: number;
  facts: ExecutionFacts;
  hooks: readonly HookTrace[];
  record: (point: PointName, r: StageResult) => StageResult;
}

/**
 * The ending of every operation: operation.error (on an error) and operation.finally, the
 * duration, the record's ending (a write that fails is kept in `facts.recordError`, never
 * hiding the outcome), then the stages let go.
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
