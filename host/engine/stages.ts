import type { MatchTarget } from "../pipeline/bindings.js";
import type { PointName } from "../pipeline/points.js";
import type { StageResult } from "../pipeline/run-steps.js";
import type { StreamPlan } from "../pipeline/stream-rewrite.js";
import type { CallContext } from "../pipeline/call-types.js";

/** The stages of one operation, all on the release it started with. */
export interface OperationStages {
  readonly operationId: string;
  readonly revision: number;
  /** The caller's signal combined with the deadline. */
  readonly signal: AbortSignal;
  run(point: PointName, payload: Record<string, unknown>): Promise<StageResult>;
  /** An after stage: ordered by the release's mode, unwinding a short-circuit, with the before hooks' carries. `readOnly`: after bindings judging an answer already streamed (see {@link streamPlan}). */
  runAfter(point: PointName, payload: Record<string, unknown>, before: StageResult, readOnly?: ReadonlySet<string>): Promise<StageResult>;
  /** operation.error / operation.finally: failures are recorded, never raised. */
  diagnostic(point: PointName, payload: Record<string, unknown>): Promise<StageResult>;
  /** Whether a binding of this operation at `point` (an after point) may change the output: one that is not observe-only. */
  outputMayChange(point: PointName): boolean;
  /** Whether a stream that ran `before` holds its text back for model.chat.after, and which after bindings judge it read-only when not (pipeline/stream-rewrite.ts). */
  streamPlan(before: StageResult): StreamPlan;
  /** Chunk stages pair with the before stage this operation ran: its carries reach them, and in symmetric mode they run in reverse and unwind from its short-circuit. */
  chunk(payload: Record<string, unknown>, holds: readonly string[]): Promise<StageResult>;
  /** Several waiting chunks in order (one worker task when it can): one result per chunk that ran. */
  chunks(payloads: readonly Record<string, unknown>[], holds: readonly string[]): Promise<StageResult[]>;
  end(): void;
}

export interface StageRunner {
  begin(ctx: CallContext, target: MatchTarget, callId?: string): OperationStages;
}
