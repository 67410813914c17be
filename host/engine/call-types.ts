/**
 * The lifecycle's contract with its callers: who calls and why, what the real call receives,
 * and what every boundary call answers.
 */
import type { SluiceError } from "../errors/sluice-error.js";
import type { Purpose, PointName } from "../pipeline/points.js";
import type { StepReport } from "../pipeline/run-steps.js";
import type { ExecutionFacts } from "../records/facts.js";

/** Who is calling and why: becomes the hooks' read-only context. */
export interface CallContext {
  spaceId: string;
  actorId?: string;
  runId?: string;
  /** "main" (the default) or a child agent's instance id. */
  instanceId?: string;
  parentOperationId?: string;
  purpose?: Purpose;
  /** Epoch milliseconds; hooks and the operation are cancelled when it passes. */
  deadline?: number;
  signal?: AbortSignal;
}

/** What the wrapped operation receives besides its input. */
export interface OperationContext {
  signal: AbortSignal;
  /** Stable for the logical operation (also across retries and resume): make side effects idempotent with it. */
  idempotencyKey: string;
  /** 1 for the first attempt. Retries reuse the validated input and do not re-run hooks. */
  attempt: number;
  operationId: string;
  /**
   * Reports something the operation did that outlives it (a file written, a record
   * created): shown read-only to `tool.after` as `artifacts`, kept in `facts.artifacts`
   * and in the operation record. Plain data.
   * @example op.artifact({ kind: "file", path: "/ws/report.md" })
   */
  artifact(artifact: Record<string, unknown>): void;
}

/** One hook that ran during a boundary call: its point, binding, outcome and timing. */
export interface HookTrace extends StepReport {
  point: PointName;
}

/**
 * The result of every boundary call (`chat`, `tool`, `embed`, ...): the output, or the error with its catalogue code; the facts and hook traces either way. Never thrown.
 */
export type BoundaryResult<T> =
  | { ok: true; output: T; facts: ExecutionFacts; hooks: HookTrace[]; annotations: Record<string, unknown> }
  | {
    ok: false; error: SluiceError; facts: ExecutionFacts; hooks: HookTrace[]; annotations: Record<string, unknown>;
    /** A tool that failed: the view of the failure its after hooks left (what the model may be shown); the error stands. */
    output?: T;
  };

/** Per-call options of the boundary calls: retries, deadline, abort signal. */
export interface BoundaryOptions {
  /** Extra attempts of the operation on failure; hooks run once per logical call. */
  retries?: number;
  /**
   * How a failure of the wrapped call itself (OPERATION_FAILED) reaches the caller.
   * `"result"` (the default): as a result, like every other failure. `"original"`: the
   * promise rejects with exactly what the wrapped call threw, so a framework's own retry
   * logic sees its own error class; the error and finally stages, facts, events and
   * records have recorded the failure by then. Every other failure stays a result.
   * @example await host.chat(ctx, request, callModel, { errorMode: "original" }) // rejects with callModel's APICallError
   */
  errorMode?: "result" | "original";
}
