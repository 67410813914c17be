/**
 * Resume: an operation whose real execution finished but whose after processing
 * did not (a fail-closed after hook failed, the call was cancelled, or the process died)
 * runs its after stage again on the stored real result. The tool or model is never called
 * again: the spec's `execute` refuses.
 *
 * Which release? The CURRENT one. Resume exists so an operator can fix what stopped the
 * after chain (publish a corrected hook) and finish the work; re-running the release that
 * failed would fail the same way. The record keeps both: `revision` (the release the
 * operation started on, whose before chain shaped the input) and `resumedRevision`.
 */
import { SluiceError } from "../errors/sluice-error.js";
import { OK } from "../pipeline/result.js";
import type { StageResult } from "../pipeline/run-steps.js";
import { runOperation, type OperationSpec } from "./run-operation.js";
import { callOnce } from "./real-call.js";
import type { OperationStages, StageRunner } from "./stages.js";
import type { BoundaryResult, CallContext } from "./call-types.js";
import type { ExecutionFacts } from "../records/facts.js";
import type { OperationStore } from "../records/store.js";
import type { OperationRecord, StoredResult } from "../records/types.js";
import type { OperationKind } from "../pipeline/points.js";
import { withKeys } from "../objects/with-keys.js";

/** Options of resuming a recorded operation after a crash. */
export interface ResumeOptions {
  /** Cancels the resumed after processing (the record stays resumable). */
  signal?: AbortSignal;
  /** Epoch milliseconds; the original deadline is not reused (it has usually passed). */
  deadline?: number;
}

/** What resume needs from the host. */
export interface ResumeHost {
  /** The host's id: the owner it claims the operation as. */
  owner: string;
  /** Stages on the current release, for the stored operation (same id, same idempotency key). */
  resumeStages(record: OperationRecord, ctx: CallContext): OperationStages;
  embeddingSignature(ctx: CallContext, model: string): string;
}

export async function resumeOperation(host: ResumeHost, store: OperationStore, operationId: string, options: ResumeOptions = {}): Promise<BoundaryResult<unknown>> {
  const claimed = await claimStored(store, host.owner, operationId, RESUMABLE);
  if (claimed instanceof SluiceError) return refused(operationId, claimed.record, claimed);
  return resumeStored(host, claimed.record, claimed.stored, options);
}

/** What stands against going on with a stored operation, and the code that says so. */
export interface Takeable {
  code: "OPERATION_NOT_RESUMABLE" | "OPERATION_NOT_AWAITING";
  /** What the operation cannot do, for the message: "be resumed". */
  cannot: string;
  /** Why not, or null when it can go on. */
  against: (record: OperationRecord, stored: StoredResult | undefined) => string | null;
}

const RESUMABLE: Takeable = { code: "OPERATION_NOT_RESUMABLE", cannot: "be resumed", against: (record, stored) => notResumable(record, stored) };

/** A refusal to take an operation, with the record it read (when there was one). */
export type Refusal = SluiceError & { record?: OperationRecord };

/**
 * Takes a stored operation for `owner`, atomically, when `why` finds nothing against it:
 * two hosts (or two requests in one) never both go on with it. The claim ends when the run
 * that goes on ends (its ending clears the owner); a refusal after the claim lets it go.
 */
export async function claimStored(store: OperationStore, owner: string, operationId: string, why: Takeable): Promise<{ record: OperationRecord; stored: StoredResult } | Refusal> {
  try {
    const checked = await takeable(store, operationId, why);
    if (checked instanceof SluiceError) return checked;
    const claim = await store.claim(operationId, owner);
    if (claim !== "claimed") {
      const record = await store.get(operationId);
      if (!record) return notFound(operationId);
      return Object.assign(new SluiceError("OPERATION_BUSY", `operation ${operationId} is being run by host ${record.owner ?? "unknown"} (its lease is live); retry once it ends, or once that host is gone and its lease has expired`, { operationId, owner: record.owner ?? null }), { record });
    }
    // Read again under the claim: another host may have finished it since the first look.
    const now = await takeable(store, operationId, why);
    if (now instanceof SluiceError) await store.update(operationId, { owner: null });
    return now;
  } catch (err) {
    return err instanceof SluiceError ? err : new SluiceError("STORE_UNAVAILABLE", `records store: ${(err as Error)?.message ?? String(err)}`);
  }
}

/** The record and its stored result when nothing stands against taking it; the refusal otherwise. */
async function takeable(store: OperationStore, operationId: string, why: Takeable): Promise<{ record: OperationRecord; stored: StoredResult } | Refusal> {
  const record = await store.get(operationId);
  if (!record) return notFound(operationId);
  const stored = await store.result(operationId);
  const reason = why.against(record, stored);
  if (reason) return Object.assign(new SluiceError(why.code, `operation ${operationId} cannot ${why.cannot}: ${reason}`, { operationId, phase: record.phase, realStatus: record.realStatus, outcome: record.outcome }), { record });
  return { record, stored: stored! };
}

function notFound(operationId: string): SluiceError {
  return new SluiceError("OPERATION_NOT_FOUND", `no operation record ${operationId}; records are kept only by a host created with a records store`, { operationId });
}

function resumeStored(host: ResumeHost, record: OperationRecord, result: StoredResult, options: ResumeOptions): Promise<BoundaryResult<unknown>> {
  const { identity } = record;
  const ctx: CallContext = withKeys(identity.ctx, withKeys((options.signal ? { signal: options.signal } : {}), { ...(options.deadline !== undefined ? { deadline: options.deadline } : {}) }));
  const runner: StageRunner = { begin: () => host.resumeStages(record, ctx) };
  const spec: OperationSpec<unknown, unknown> = {
    operation: identity.operation, ctx, before: identity.beforePoint, after: identity.afterPoint, payload: {}, target: identity.target,
    ...(identity.callId !== undefined ? { callId: identity.callId } : {}),
    finalCheck: () => OK,
    served: () => ({ ok: false, error: { code: "OPERATION_NOT_RESUMABLE", message: "unreachable: a resumed operation has no before stage" } }),
    call: callOnce(() => Promise.reject(new Error("unreachable: a resumed operation is never executed again"))),
    afterPayload: () => result.afterPayload,
    output: outputOf(identity.operation, ctx, host),
    resumed: {
      ending: { real: result.real, afterPayload: result.afterPayload }, before: beforeOf(result),
      facts: { revision: record.revision, called: record.shortCircuitedBy === null, realStatus: record.realStatus, attempts: record.attempts, ...(record.shortCircuitedBy ? { shortCircuitedBy: record.shortCircuitedBy } : {}) },
    },
  };
  return runOperation(runner, spec);
}

function notResumable(record: OperationRecord, stored: StoredResult | undefined): string | null {
  if (record.realStatus === "unknown") return `its real status is unknown (the process stopped while it ran); check with the tool or provider using idempotency key ${record.idempotencyKey} and decide: it is never retried automatically`;
  if (record.realStatus === "running") return "it is still marked running; if its process died, run `await host.recover()` first (it becomes unknown once that host is gone: its lease ended or, on SQLite, its process is dead)";
  if (record.phase === "finished") return `it already finished (${record.outcome ?? "no outcome"})`;
  if (record.phase === "after" && record.realStatus === "succeeded" && !stored) return "its real result was deleted when its retention ended (resultRetentionMs of the records store)";
  if (record.phase !== "after" || !stored) return `its real execution did not succeed (phase ${record.phase}, real status ${record.realStatus})`;
  return null;
}

/** The before stage as the after stage needs it: carries, and unwinding after a short-circuit. */
export function beforeOf(result: StoredResult): StageResult {
  const b = result.before;
  return {
    payload: {}, reports: [], reached: b.reached, carries: b.carries,
    ...(b.shortCircuitedBy ? { stop: { kind: "short_circuit" as const, bindingId: b.shortCircuitedBy, result: null } } : {}),
  };
}

/**
 * The output an uninterrupted run builds from the after payload (tool.ts, chat.ts,
 * embed.ts `output`); test/records checks resumed and uninterrupted outputs are equal.
 */
function outputOf(kind: OperationKind, ctx: CallContext, host: ResumeHost): (after: Record<string, unknown>, real: unknown) => unknown {
  switch (kind) {
    case "tool": return (after) => ({ status: after.status, view: after.view, callId: after.call_id });
    case "chat": return (after) => { const { model: _m, annotations: _a, ...response } = after; return response; };
    case "embedding": return (after, real) => {
      const vectors = (real as { vectors: number[][] }).vectors;
      return { vectors, dimension: vectors[0]?.length ?? 0, signature: host.embeddingSignature(ctx, String(after.model)) };
    };
  }
}

export function refused(operationId: string, record: OperationRecord | undefined, error: SluiceError): BoundaryResult<unknown> {
  const facts: ExecutionFacts = {
    operationId, revision: record?.revision ?? 0, called: record ? record.realStatus !== "not_started" : false, realStatus: record?.realStatus ?? "not_started",
    attempts: record?.attempts ?? 0, idempotencyKey: record?.idempotencyKey ?? operationId, durationMs: 0,
  };
  return { ok: false, error, facts, hooks: [], annotations: {} };
}
