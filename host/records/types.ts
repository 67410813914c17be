/**
 * What the records store keeps, as plain data: one record per operation (its phase and
 * the real execution facts, by reference) and one audit record per hook execution
 * (digests, never content).
 */
import type { MatchTarget } from "../pipeline/bindings.js";
import type { OperationKind, PointName, Purpose } from "../pipeline/points.js";
import type { RealStatus } from "./facts.js";
import type { SkippedHook } from "../pipeline/skipped-hooks.js";
import type { GuestLogCounts } from "../pipeline/guest-logs.js";

/**
 * Where an operation is. `after` with realStatus `succeeded` is the resumable state: the
 * real result is stored, the effective output is not.
 */
/** `awaiting`: a split call whose caller runs the real call; its result arrives in a later request (it holds no host, and recovery leaves it alone). */
export type OperationPhase = "before" | "operation" | "awaiting" | "after" | "finished";


/** Enough of the call to rebuild the hooks' context and bindings' match on resume; identifiers only, no payload. */
export interface OperationIdentity {
  operation: OperationKind;
  beforePoint: PointName;
  afterPoint: PointName;
  ctx: { spaceId: string; actorId?: string; runId?: string; instanceId?: string; parentOperationId?: string; purpose?: Purpose };
  target: MatchTarget;
  callId?: string;
}

/** One recorded operation: its identity, phase, the digests of what crossed the boundary, and its outcome. */
export interface OperationRecord {
  operationId: string;
  parentOperationId: string | null;
  /** What the wrapped operation received as `op.idempotencyKey`; the same on resume. */
  idempotencyKey: string;
  identity: OperationIdentity;
  /** The point of the current phase. */
  point: PointName;
  phase: OperationPhase;
  realStatus: RealStatus;
  /** The release the operation started on (its before stage and identity). */
  revision: number;
  /** The release whose after chain the latest resume ran (resume uses the current release). */
  resumedRevision: number | null;
  resumes: number;
  /**
   * The after hook running now, or the one an unfinished after stage stopped at (the
   * checkpoint's `binding_id`, abi/README.md §4.3); null or absent otherwise.
   */
  inProgress?: { point: PointName; bindingId: string } | null;
  /**
   * The host (its `hostId`) running this operation now: set when it starts or a resume
   * claims it, null once it ends. A live owner (its lease current) keeps it from other
   * resumers and from `markInterrupted`; absent on records written before leases existed.
   */
  owner?: string | null;
  /** What the tool reported it did (files written, records created), as it reported it. */
  artifacts?: Record<string, unknown>[];
  /** Bindings whose hooks finished, in order, across stages. */
  completed: { point: PointName; bindingId: string }[];
  /**
   * Bindings at the points this operation's stages reached that did not run, and why
   * (disabled, quarantined, not matched); absent when none was skipped, and on records
   * written before it was kept.
   */
  skipped?: SkippedHook[];
  /** Keyed digest (HMAC-SHA-256, pipeline/digest.ts) of the final input (after the before stage); the content is kept only in an opt-in payload store. */
  finalInputRef: string | null;
  /** Keyed digest of the real result; the result itself is stored apart while the operation can resume (see {@link StoredResult}). */
  realResultRef: string | null;
  /** Keyed digest of the effective output the caller got. */
  effectiveOutputRef: string | null;
  /** Model calls: usage and provider request id of the billed call, so nothing re-requests it. */
  usage: { input_tokens: number; output_tokens: number } | null;
  providerRequestId: string | null;
  attempts: number;
  shortCircuitedBy: string | null;
  /** How it ended (succeeded, failed, rejected, blocked, cancelled, short_circuited); null while in progress. */
  outcome: string | null;
  /** Code and message only: details may carry content. */
  error: { code: string; message: string } | null;
  /** Epoch milliseconds. */
  createdAt: number;
  updatedAt: number;
}

/**
 * The real result and what the after stage needs to run again on it. Kept apart from the
 * record (and from the effective output) so the real result is never confused with what
 * the caller saw.
 */
export interface StoredResult {
  /** Null while the operation awaits its result. */
  real: unknown;
  /** The after stage's input, built from the real result when it arrived; empty while the operation awaits it. */
  afterPayload: Record<string, unknown>;
  /** An awaiting operation's final input (the after stage's payload is built from it and the result). */
  input?: Record<string, unknown>;
  /** What the before stage left for the after stage: plugin carries and short-circuit unwinding. */
  before: { ran: boolean; reached: number; carries: Record<string, unknown>; shortCircuitedBy?: string };
}

/** One hook execution. No content: keyed digests of the canonical JSON of what went in and out. */
export interface AuditRecord {
  /** Assigned by the store; increases with insertion. */
  seq?: number;
  operationId: string;
  bindingId: string;
  /** `id@version` of a guest plugin, or an in-process hook's name. */
  hookRef: string;
  /** sha256 of the plugin's module bytes; "in-process" for trusted TypeScript hooks. */
  codeSha256: string;
  point: PointName;
  /** The stage of the point: before, after, error, finally. */
  phase: string;
  /** The release the stage ran on. */
  revision: number;
  outcome: string;
  inputDigest: string;
  outputDigest: string;
  /** Keyed digest of the patch (or redaction) the hook returned; null when it changed nothing. */
  patchDigest: string | null;
  durationMs: number;
  /** Fuel the guest hook used (abi/README.md §11); null for an in-process hook or a step that did not run. */
  fuel: number | null;
  errorCode: string | null;
  /**
   * What the guest logged: how many lines of each level and how many were dropped; null
   * when it logged nothing (and for in-process hooks). The lines are content (a guest may
   * quote the payload): the row never holds them. With the payload store on, `ref` is the
   * keyed digest under which that store keeps them (sealed, for its retention), as it keeps
   * the payloads (docs/guest-logs.md).
   */
  logs?: AuditLogs | null;
  /** Epoch milliseconds. */
  at: number;
}

export type AuditLogs = GuestLogCounts & { ref?: string };

/** Filters for {@link OperationStore.audit}; all optional, combined with AND. Times are epoch ms, `to` exclusive. */
export interface AuditQuery {
  operationId?: string;
  bindingId?: string;
  from?: number;
  to?: number;
  /** Default 1000. */
  limit?: number;
}

/** Filters of listing recorded operations. */
export interface OperationQuery {
  phase?: OperationPhase;
  realStatus?: RealStatus;
  /** Default 1000. */
  limit?: number;
}
