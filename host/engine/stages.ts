import type { MatchTarget } from "../pipeline/bindings.js";
import type { OperationKind, PointName } from "../pipeline/points.js";
import type { StageResult } from "../pipeline/run-steps.js";
import type { StreamPlan } from "./stream-rewrite.js";
import type { ErrorData } from "../errors/sluice-error.js";
import type { CallContext } from "./call-types.js";
import type { ExecutionFacts } from "../records/facts.js";

/** Where an operation ended; null: it succeeded. */
export type EndPhase = "before" | "operation" | "after" | null;

/** What an after stage may be given besides its payload. */
export interface AfterOptions {
  /** After bindings judging an answer already streamed (see {@link OperationStages.streamPlan}). */
  readOnly?: ReadonlySet<string>;
  /** Told the binding in progress (engine/stage.ts says when): the recording's checkpoint. A promise it answers before the stage's first hook is awaited before that hook runs. */
  progress?: (bindingId: string) => Promise<void> | void;
}

/** An already settled "nothing to say", shared by every phase of stages that record nothing. */
export const NOTHING: Promise<undefined> = Promise.resolve(undefined);

/**
 * The stages of one operation, all on the release it started with: what a boundary runs
 * hooks through. The engine builds them (operation-engine.ts); wrappers of one shape
 * (compose.ts) record and observe them.
 */
export interface OperationStages {
  readonly operationId: string;
  readonly revision: number;
  /** The caller's signal combined with the deadline. */
  readonly signal: AbortSignal;
  run(point: PointName, payload: Record<string, unknown>): Promise<StageResult>;
  /** An after stage: ordered by the release's mode, unwinding a short-circuit, with the before hooks' carries. */
  runAfter(point: PointName, payload: Record<string, unknown>, before: StageResult, options?: AfterOptions): Promise<StageResult>;
  /** operation.error / operation.finally: failures are recorded, never raised. */
  diagnostic(point: PointName, payload: Record<string, unknown>): Promise<StageResult>;
  /** Whether a binding of this operation at `point` (an after point) may change the output: one that is not observe-only. */
  outputMayChange(point: PointName): boolean;
  /** Whether a stream that ran `before` holds its text back for model.chat.after, and which after bindings judge it read-only when not (engine/stream-rewrite.ts). */
  streamPlan(before: StageResult): StreamPlan;
  /** Chunk stages pair with the before stage this operation ran: its carries reach them, and in symmetric mode they run in reverse and unwind from its short-circuit. */
  chunk(payload: Record<string, unknown>, holds: readonly string[]): Promise<StageResult>;
  /** Several waiting chunks in order (one worker task when it can): one result per chunk that ran. */
  chunks(payloads: readonly Record<string, unknown>[], holds: readonly string[]): Promise<StageResult[]>;
  /*
   * The operation's phase boundaries, in this order, as engine/run-operation.ts reaches them.
   * The engine's own stages only wake a worker at them when guest hooks run next
   * (Sandbox.expectTask); a wrapper (recording) acts on them, and an error it answers ends
   * the operation there.
   */
  /** Before anything runs. */
  opened(operation: OperationKind, before: PointName, after: PointName): Promise<ErrorData | undefined>;
  /** The real call is about to start on `input`: a crash from here on leaves its outcome unknown. */
  calling(before: PointName, input: Record<string, unknown>): Promise<ErrorData | undefined>;
  /** The real call succeeded: its result exists before any after hook runs (a recording writes it with the first after hook's checkpoint, or with the ending). */
  called(after: PointName, real: unknown, afterPayload: Record<string, unknown>, before: StageResult, facts: ExecutionFacts): Promise<void>;
  /** A split call's real call is the caller's: the operation awaits its result, and keeps what the after stage needs (the final input, the before stage's carries) where a later request, on any host sharing the records, finds it. Answers the error of keeping it. */
  awaiting(after: PointName, input: Record<string, unknown>, before: StageResult): Promise<ErrorData | undefined>;
  /** The operation ended (facts final); answers the error, if any, of keeping its ending. */
  closed(phase: EndPhase, error: ErrorData | null, outcome: string, facts: ExecutionFacts, output: unknown): Promise<ErrorData | undefined>;
  end(): void;
}

export interface StageRunner {
  begin(ctx: CallContext, target: MatchTarget, callId?: string): OperationStages;
}
