/**
 * The real call of an operation, as a strategy of the one lifecycle (run-operation.ts): the
 * lifecycle runs the before stage, the final check and the record's "running" mark, hands
 * the final input to the strategy, and runs the after stage on the real result it answers.
 * Called once (with retries) here; streamed with chunk hooks in boundary/stream.ts; split
 * across two requests (the caller runs it and reports the result later) by `awaitResult`.
 */
import type { ErrorData } from "../errors/sluice-error.js";
import type { PointName } from "../pipeline/points.js";
import type { StageResult } from "../pipeline/run-steps.js";
import type { OperationContext } from "./call-types.js";
import type { ExecutionFacts, RealStatus } from "../records/facts.js";
import { abortable, cancelled, isCancel, operationFailed } from "./endings.js";
import type { OperationStages } from "./stages.js";

/** What a strategy is given besides the final input. */
export interface CallScope {
  stages: OperationStages;
  facts: ExecutionFacts;
  /** The before stage that ran: its carries and short-circuit reach the stages the call runs. */
  before: StageResult;
  /** Keeps a stage's hook traces and annotations with the operation's. */
  record: (point: PointName, r: StageResult) => StageResult;
  /** The context attempt `attempt` of the real call receives. */
  op: (attempt: number) => OperationContext;
  /** The operation's kind, for messages. */
  operation: string;
}

/**
 * How the real call ended: its result; or the ending of the whole operation (a failure, a
 * cancellation, a stream's chunk hook that blocked), with the real status it leaves; or
 * "awaiting": the caller runs the call itself and reports its result in a later request.
 */
export type CallEnd<Real> =
  | { kind: "real"; real: Real; readOnly?: ReadonlySet<string> }
  | { kind: "ended"; error: ErrorData; realStatus: RealStatus; phase: "operation" | "after" }
  | { kind: "awaiting" };

export interface RealCall<Real> {
  /**
   * Calls the real operation on the final input, or relays `served`: a before hook's
   * short-circuit result, when nothing is called (a stream still runs its chunk hooks on it).
   */
  run(input: Record<string, unknown>, scope: CallScope, served: { real: Real } | undefined): Promise<CallEnd<Real>>;
}

/** The call made once, and again up to `retries` times on failure with the same validated input (hooks run once per logical call). */
export function callOnce<Real>(execute: (input: Record<string, unknown>, op: OperationContext) => Promise<Real>, retries = 0): RealCall<Real> {
  return {
    async run(input, { stages, facts, op, operation }, served) {
      if (served) return { kind: "real", real: served.real };
      const attempts = 1 + Math.max(0, retries);
      let lastError: ErrorData | undefined;
      let real: Real | undefined;
      for (facts.attempts = 1; facts.attempts <= attempts; facts.attempts++) {
        if (stages.signal.aborted) { lastError = cancelled(stages.signal); break; }
        try {
          real = await abortable(execute(input, op(facts.attempts)), stages.signal);
          lastError = undefined;
          break;
        } catch (err) {
          lastError = stages.signal.aborted ? cancelled(stages.signal) : operationFailed(`${operation} operation failed`, err);
          // Cancelled: no further attempt starts, so none is counted.
          if (stages.signal.aborted) break;
        }
      }
      facts.attempts = Math.min(facts.attempts, attempts);
      if (lastError) return { kind: "ended", error: lastError, realStatus: isCancel(lastError) ? "unknown" : "failed", phase: "operation" };
      return { kind: "real", real: real as Real };
    },
  };
}

/** The split call: the caller runs it (a coding agent's tool) and reports its result in a later request (boundary/tool-split.ts). */
export const awaitResult: RealCall<never> = {
  run: async (_input, _scope, served) => (served ? { kind: "real", real: served.real } : { kind: "awaiting" }),
};
