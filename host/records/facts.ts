import type { ErrorData } from "../errors/sluice-error.js";

/** What happened to the real operation (the model, tool or embedding call), recorded in the facts. */
export type RealStatus = "not_started" | "running" | "succeeded" | "failed" | "unknown";

/** The real execution facts, kept apart from what the caller sees. */
export interface ExecutionFacts {
  operationId: string;
  revision: number;
  /** False when the operation was never called: rejected, failed before, or short-circuited. */
  called: boolean;
  realStatus: RealStatus;
  /** The binding that served the result instead of the operation ("not actually called"). */
  shortCircuitedBy?: string;
  /** What the operation really returned, before any after hook touched the view. */
  realResult?: unknown;
  /** Attempts really started: an attempt cut off by cancellation counts, the ones never started do not. */
  attempts: number;
  idempotencyKey: string;
  durationMs: number;
  /** What the operation reported with `op.artifact(...)`, in order. */
  artifacts?: Record<string, unknown>[];
  /** Set by `host.resume`: the release whose after chain ran this time (`revision` stays the one the operation started on). */
  resumedRevision?: number;
  /** A records store write that failed after the real call; the result stands, the record may be behind. */
  recordError?: ErrorData;
}
