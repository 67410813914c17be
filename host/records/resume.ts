/**
 * Resume (issue #8): an operation whose real execution finished but whose after processing
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
import { runOperation, type OperationSpec } from "../boundary/operation.js";
import type { OperationStages, StageRunner } from "../boundary/stage-runner.js";
import type { BoundaryResult, CallContext, ExecutionFacts } from "../boundary/types.js";
import type { SyncOperationStore as OperationStore } from "./sync-store.js";
import type { OperationKind, OperationRecord, StoredResult } from "./types.js";

export interface ResumeOptions {
  /** Cancels the resumed after processing (the record stays resumable). */
  signal?: AbortSignal;
  /** Epoch milliseconds; the original deadline is not reused (it has usually passed). */
  deadline?: number;
}

/** What resume needs from the host. */
export interface ResumeHost {
  /** Stages on the current release, for the stored operation (same id, same idempotency key). */
  resumeStages(record: OperationRecord, ctx: CallContext): OperationStages;
  embeddingSignature(ctx: CallContext, model: string): string;
}

export async function resumeOperation(host: ResumeHost, store: OperationStore, operationId: string, options: ResumeOptions = {}): Promise<BoundaryResult<unknown>> {
  let record: OperationRecord | undefined;
  let stored: StoredResult | undefined;
  try {
    record = store.get(operationId);
    stored = record && store.result(operationId);
  } catch (err) {
    return refused(operationId, record, err instanceof SluiceError ? err : new SluiceError("STORE_UNAVAILABLE", String(err)));
  }
  if (!record) return refused(operationId, undefined, new SluiceError("OPERATION_NOT_FOUND", `no operation record ${operationId}; records are kept only by a host created with a records store`, { operationId }));
  const why = notResumable(record, stored);
  if (why) return refused(operationId, record, new SluiceError("OPERATION_NOT_RESUMABLE", `operation ${operationId} cannot be resumed: ${why}`, { operationId, phase: record.phase, realStatus: record.realStatus, outcome: record.outcome }));

  // Two resumes of one operation in this process would run its after stage twice.
  const active = resuming.get(store) ?? new Set<string>();
  resuming.set(store, active);
  if (active.has(operationId)) return refused(operationId, record, new SluiceError("OPERATION_NOT_RESUMABLE", `operation ${operationId} is being resumed already`, { operationId, phase: record.phase, realStatus: record.realStatus }));
  active.add(operationId);
  try {
    return await resumeStored(host, record, stored!, options);
  } finally {
    active.delete(operationId);
  }
}

const resuming = new WeakMap<OperationStore, Set<string>>();

function resumeStored(host: ResumeHost, record: OperationRecord, result: StoredResult, options: ResumeOptions): Promise<BoundaryResult<unknown>> {
  const { identity } = record;
  const ctx: CallContext = { ...identity.ctx, ...(options.signal ? { signal: options.signal } : {}), ...(options.deadline !== undefined ? { deadline: options.deadline } : {}) };
  const runner: StageRunner = { begin: () => host.resumeStages(record, ctx) };
  const spec: OperationSpec<unknown, unknown> = {
    operation: identity.operation, ctx, before: identity.beforePoint, after: identity.afterPoint, payload: {}, target: identity.target,
    ...(identity.callId !== undefined ? { callId: identity.callId } : {}),
    finalCheck: () => OK,
    served: () => ({ ok: false, error: { code: "OPERATION_NOT_RESUMABLE", message: "unreachable: a resumed operation has no before stage" } }),
    execute: () => Promise.reject(new Error("unreachable: a resumed operation is never executed again")),
    afterPayload: () => result.afterPayload,
    output: outputOf(identity.operation, ctx, host),
    resumed: {
      real: result.real, afterPayload: result.afterPayload, before: beforeOf(result),
      facts: { revision: record.revision, called: record.shortCircuitedBy === null, realStatus: record.realStatus, attempts: record.attempts, ...(record.shortCircuitedBy ? { shortCircuitedBy: record.shortCircuitedBy } : {}) },
    },
  };
  return runOperation(runner, spec);
}

function notResumable(record: OperationRecord, stored: StoredResult | undefined): string | null {
  if (record.realStatus === "unknown") return `its real status is unknown (the process stopped while it ran); check with the tool or provider using idempotency key ${record.idempotencyKey} and decide: it is never retried automatically`;
  if (record.realStatus === "running") return "it is still marked running; if its process died, run host.recover() first (it becomes unknown)";
  if (record.phase === "finished") return `it already finished (${record.outcome ?? "no outcome"})`;
  if (record.phase === "after" && record.realStatus === "succeeded" && !stored) return "its real result was deleted when its retention ended (resultRetentionMs of the records store)";
  if (record.phase !== "after" || !stored) return `its real execution did not succeed (phase ${record.phase}, real status ${record.realStatus})`;
  return null;
}

/** The before stage as the after stage needs it: carries, and unwinding after a short-circuit. */
function beforeOf(result: StoredResult): StageResult {
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

function refused(operationId: string, record: OperationRecord | undefined, error: SluiceError): BoundaryResult<unknown> {
  const facts: ExecutionFacts = {
    operationId, revision: record?.revision ?? 0, called: record ? record.realStatus !== "not_started" : false, realStatus: record?.realStatus ?? "not_started",
    attempts: record?.attempts ?? 0, idempotencyKey: record?.idempotencyKey ?? operationId, durationMs: 0,
  };
  return { ok: false, error, facts, hooks: [], annotations: {} };
}
