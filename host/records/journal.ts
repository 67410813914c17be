/**
 * The records of one operation, written at each phase boundary: start, "running" before
 * the real call, the real result right after it, the ending. The host creates one per
 * operation only when it has a records store, so a host without one pays nothing.
 * Write failures before the real call refuse the call (the crash guarantee would not
 * hold); failures after it are kept in `error` and never hide the real result.
 * The store is asynchronous: the journal queues its writes in order (audit rows and
 * progress marks are not waited for, the phase boundaries are), so an engine with a pool
 * never applies one operation's writes out of order.
 */
import type { ErrorData } from "../errors/sluice-error.js";
import { SluiceError } from "../errors/sluice-error.js";
import { getPoint, type PointName } from "../pipeline/points.js";
import { usageView } from "../pipeline/usage.js";
import type { StageResult } from "../pipeline/run-steps.js";
import type { ExecutionFacts } from "../pipeline/call-types.js";
import type { Digester } from "../pipeline/digest.js";
import type { OperationStore, PayloadStore } from "./store.js";
import type { AuditRecord, OperationIdentity, OperationKind, OperationRecord, StoredResult } from "./types.js";

export interface JournalInit {
  store: OperationStore;
  payloads?: PayloadStore | undefined;
  /** The deployment's keyed digests; step reports arrive keyed already (host.ts). */
  digests: Digester;
  operationId: string;
  /** The host running the operation (its id): the record's `owner` until it ends. */
  owner: string;
  /** The release this run of the stages uses. */
  revision: number;
  identity: Omit<OperationIdentity, "operation" | "beforePoint" | "afterPoint">;
  /** Plugin ref and code hash of a binding of that release. */
  codeOf: (bindingId: string) => { hookRef: string; codeSha256: string };
  /** Set when this run resumes a stored operation. */
  resuming?: OperationRecord;
}

export class OperationJournal {
  /** The first write that failed after the real call (the call's result still stands). */
  error: ErrorData | undefined;
  private completed: OperationRecord["completed"];
  private started = false;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly init: JournalInit) {
    this.completed = init.resuming ? [...init.resuming.completed] : [];
  }

  get resuming(): boolean {
    return this.init.resuming !== undefined;
  }

  /** Fixes the operation's identity on disk; an error means the operation must not proceed. */
  start(operation: OperationKind, before: PointName, after: PointName): Promise<ErrorData | undefined> {
    const { store, operationId, revision, resuming, owner } = this.init;
    const now = Date.now();
    this.started = true;
    if (resuming) {
      return this.write(() => store.update(operationId, { phase: "after", point: after, resumedRevision: revision, resumes: resuming.resumes + 1, owner, outcome: null, error: null, updatedAt: now }));
    }
    const identity: OperationIdentity = { operation, beforePoint: before, afterPoint: after, ...this.init.identity };
    return this.write(() => store.insert({
      operationId, parentOperationId: identity.ctx.parentOperationId ?? null, idempotencyKey: operationId, identity, owner,
      point: before, phase: "before", realStatus: "not_started", revision, resumedRevision: null, resumes: 0, completed: [],
      finalInputRef: null, realResultRef: null, effectiveOutputRef: null, usage: null, providerRequestId: null,
      attempts: 0, shortCircuitedBy: null, outcome: null, error: null, createdAt: now, updatedAt: now,
    }));
  }

  /** Audits one stage: a record per hook, with digests chained through the stage (queued, not waited for). */
  stage(point: PointName, input: Record<string, unknown>, result: StageResult): void {
    if (!this.started || result.reports.length === 0) return;
    const { revision, codeOf, operationId } = this.init;
    const at = Date.now();
    const phase = getPoint(point).stage;
    let digest = this.init.digests.of(input);
    this.keep(digest, input);
    const rows: AuditRecord[] = result.reports.map((step) => {
      const inputDigest = digest;
      digest = step.outputDigest ?? digest;
      return {
        operationId, bindingId: step.bindingId, ...codeOf(step.bindingId), point, phase, revision, outcome: step.outcome,
        inputDigest, outputDigest: digest, patchDigest: step.patchDigest ?? null, durationMs: step.durationMs, fuel: step.fuel ?? null, errorCode: step.error?.code ?? null, at,
      };
    });
    // The hook that ended a stage by failing did not complete; every other one did.
    const done = result.failure ? result.reports.slice(0, -1) : result.reports;
    this.completed.push(...done.map((s) => ({ point, bindingId: s.bindingId })));
    if (this.init.payloads) this.keep(this.init.digests.of(result.payload), result.payload);
    void this.write(() => this.init.store.appendAudit(rows));
  }

  /** The after hook about to run (the checkpoint's `binding_id`, abi/README.md §4.3): a record cut off here names it. */
  inProgress(point: PointName, bindingId: string): void {
    if (!this.started) return;
    void this.write(() => this.init.store.update(this.init.operationId, { inProgress: { point, bindingId }, completed: this.completed, updatedAt: Date.now() }));
  }

  /**
   * Written before the real call: if the process dies from here on, the record says
   * "running" and comes back "unknown". Resolves once this write (and every one queued
   * before it) is done; the caller awaits it before calling the operation.
   */
  running(point: PointName, input: Record<string, unknown>): Promise<ErrorData | undefined> {
    const ref = this.init.digests.of(input);
    this.keep(ref, input);
    return this.write(() => this.init.store.update(this.init.operationId, { phase: "operation", point, realStatus: "running", finalInputRef: ref, completed: this.completed, updatedAt: Date.now() }));
  }

  /** Written as soon as the real result exists (awaited before the after stage): a crash in the after stage leaves it ready for resume. */
  async succeeded(point: PointName, real: unknown, afterPayload: Record<string, unknown>, before: StageResult, facts: ExecutionFacts): Promise<void> {
    const ref = this.init.digests.of(real);
    this.keep(ref, real);
    const billed = modelCharge(real);
    const result: StoredResult = {
      real: real ?? null, afterPayload,
      before: { ran: before.reports.length > 0, reached: before.reached, carries: before.carries, ...(facts.shortCircuitedBy ? { shortCircuitedBy: facts.shortCircuitedBy } : {}) },
    };
    await this.write(() => this.init.store.update(this.init.operationId, {
      phase: "after", point, realStatus: facts.realStatus, realResultRef: ref, attempts: facts.attempts, shortCircuitedBy: facts.shortCircuitedBy ?? null,
      completed: this.completed, ...billed, ...(facts.artifacts ? { artifacts: facts.artifacts } : {}), updatedAt: Date.now(),
    }, result));
  }

  /**
   * The ending, after every queued write. An after stage that failed or was cancelled
   * leaves the phase at "after": resumable. Either way the host lets go of it (`owner` null).
   */
  async ended(phase: "before" | "operation" | "after" | null, error: ErrorData | null, outcome: string, facts: ExecutionFacts, output: unknown): Promise<void> {
    if (!this.started) return;
    const unfinished = phase === "after" && error !== null && error.code !== "HOOK_BLOCKED";
    let effectiveOutputRef: string | null = null;
    if (error === null) { effectiveOutputRef = this.init.digests.of(output); this.keep(effectiveOutputRef, output); }
    await this.write(() => this.init.store.update(this.init.operationId, {
      phase: unfinished ? "after" : "finished", owner: null, realStatus: facts.realStatus, attempts: facts.attempts, completed: this.completed, effectiveOutputRef,
      ...(unfinished ? {} : { inProgress: null }), ...(facts.artifacts ? { artifacts: facts.artifacts } : {}),
      outcome, error: error && { code: error.code, message: error.message }, updatedAt: Date.now(),
    }));
  }

  /** Content goes only to the opt-in payload store, never to the records. */
  private keep(ref: string, value: unknown): void {
    if (this.init.payloads) void this.write(() => this.init.payloads!.put(ref, value));
  }

  /** Queues `fn` after every earlier write; resolves with its failure (kept in `error` too), never rejects. */
  private write(fn: () => Promise<void>): Promise<ErrorData | undefined> {
    const done = this.queue.then(fn).then(() => undefined, (err: unknown) => {
      const data: ErrorData = err instanceof SluiceError ? err.toData() : { code: "STORE_UNAVAILABLE", message: `records store: ${(err as Error)?.message ?? String(err)}` };
      this.error ??= data;
      return data;
    });
    this.queue = done;
    return done;
  }
}

/** Usage and provider request id of a model answer: what was billed, kept with the real result. */
function modelCharge(real: unknown): Pick<OperationRecord, "usage" | "providerRequestId"> | Record<string, never> {
  if (typeof real !== "object" || real === null || !("usage" in real)) return {};
  const r = real as { usage?: unknown; provider_request_id?: unknown };
  // Either naming (input/output or prompt/completion): what was billed, in the host's names.
  const u = r.usage as Record<string, unknown> | null | undefined;
  const counted = typeof u === "object" && u !== null && (typeof (u.input_tokens ?? u.prompt_tokens) === "number" && typeof (u.output_tokens ?? u.completion_tokens) === "number");
  const usage = counted ? (({ input_tokens, output_tokens }) => ({ input_tokens, output_tokens }))(usageView(u)) : null;
  return { usage, providerRequestId: typeof r.provider_request_id === "string" ? r.provider_request_id : null };
}
