/**
 * The records of one operation, written at the phase boundaries that a crash must find on
 * disk: "running" before the real call (the first write: it inserts the record), the real
 * result before any after hook runs, the ending. What happens in between (audit rows of a
 * stage, the checkpoint's binding) rides on the next write, so an operation whose stages
 * run no hook is two writes. The host creates one per operation only when it has a
 * records store, so a host without one pays nothing.
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
import type { StageResult, StepReport } from "../pipeline/run-steps.js";
import { logCounts } from "../pipeline/guest-logs.js";
import type { ExecutionFacts } from "./facts.js";
import type { Digester } from "../pipeline/digest.js";
import type { OperationStore, PayloadStore } from "./store.js";
import type { AuditLogs, AuditRecord, OperationIdentity, OperationRecord, StoredResult } from "./types.js";
import type { OperationKind } from "../pipeline/points.js";
import { withChanges } from "../objects/with-keys.js";

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
  /** Bindings skipped so far, across stages; each (point, binding) once, so a resume that runs a stage again adds nothing. */
  private skipped: NonNullable<OperationRecord["skipped"]>;
  private started = false;
  /** A fresh operation's record until its first write: nothing is on disk before the real call is about to start. */
  private unwritten: OperationRecord | undefined;
  /** What the next write carries: changes merged in order, the real result, audit rows. */
  private pending: { changes: Partial<OperationRecord>; result?: StoredResult; audit: AuditRecord[] } | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  /** The last store call a flush made: a flush that finds nothing pending answers its outcome (it took that flush's changes). */
  private lastWrite: Promise<void> = Promise.resolve();

  constructor(private readonly init: JournalInit) {
    this.completed = init.resuming ? [...init.resuming.completed] : [];
    this.skipped = init.resuming?.skipped ? [...init.resuming.skipped] : [];
  }

  get resuming(): boolean {
    return this.init.resuming !== undefined;
  }

  /**
   * Fixes the operation's identity. A fresh operation writes nothing yet: its first write
   * is "running", just before the real call (or its ending, when it ends before one), so
   * a call that runs no hook writes twice. A crash before that write loses only hooks'
   * work, which nothing outside saw. A resume takes the stored record at once.
   */
  start(operation: OperationKind, before: PointName, after: PointName): Promise<ErrorData | undefined> {
    const { store, operationId, revision, resuming, owner } = this.init;
    const now = Date.now();
    this.started = true;
    if (resuming?.phase === "awaiting") {
      // A split call's result arrived: the same run goes on, on this host (a resume only when its release changed meanwhile).
      return this.write(() => store.update(operationId, { phase: "after", point: after, owner, updatedAt: now, ...(revision !== resuming.revision ? { resumedRevision: revision } : {}) }));
    }
    if (resuming) {
      return this.write(() => store.update(operationId, { phase: "after", point: after, resumedRevision: revision, resumes: resuming.resumes + 1, owner, outcome: null, error: null, updatedAt: now }));
    }
    const identity: OperationIdentity = { operation, beforePoint: before, afterPoint: after, ...this.init.identity };
    this.unwritten = {
      operationId, parentOperationId: identity.ctx.parentOperationId ?? null, idempotencyKey: operationId, identity, owner,
      point: before, phase: "before", realStatus: "not_started", revision, resumedRevision: null, resumes: 0, completed: [],
      finalInputRef: null, realResultRef: null, effectiveOutputRef: null, usage: null, providerRequestId: null,
      attempts: 0, shortCircuitedBy: null, outcome: null, error: null, createdAt: now, updatedAt: now,
    };
    return NOTHING;
  }

  /** Audits one stage: a record per hook, with digests chained through the stage; written with the next phase boundary. */
  stage(point: PointName, input: Record<string, unknown>, result: StageResult): void {
    if (!this.started) return;
    // Rides on the next write, as the audit rows do: no write of its own.
    if (result.skipped && result.skipped.length > 0 && this.skip(result.skipped)) this.add({ skipped: this.skipped });
    if (result.reports.length === 0) return;
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
        inputDigest, outputDigest: digest, patchDigest: step.patchDigest ?? null, durationMs: step.durationMs, fuel: step.fuel ?? null, errorCode: step.error?.code ?? null,
        logs: this.logsOf(step), at,
      };
    });
    // The hook that ended a stage by failing did not complete; every other one did.
    const done = result.failure ? result.reports.slice(0, -1) : result.reports;
    this.completed.push(...done.map((s) => ({ point, bindingId: s.bindingId })));
    if (this.init.payloads) this.keep(this.init.digests.of(result.payload), result.payload);
    this.add({ completed: this.completed }, undefined, rows);
  }

  /**
   * The after hook about to run (the checkpoint's `binding_id`, abi/README.md §4.3): a record
   * cut off here names it. The first one carries the real result, which must be on disk
   * before any after hook runs: that write is awaited. A later one is told only when the
   * hook is seen running (engine/stage.ts), and written {@link CHECKPOINT_DELAY_MS} later
   * unless another write took it along first (the next hook's, or the ending).
   */
  inProgress(point: PointName, bindingId: string): Promise<void> | undefined {
    if (!this.started) return undefined;
    const carriesResult = this.pending?.result !== undefined;
    this.add({ inProgress: { point, bindingId }, completed: this.completed, updatedAt: Date.now() });
    if (carriesResult) return this.flush().then(() => undefined);
    setTimeout(() => { if (this.pending) void this.flush(); }, CHECKPOINT_DELAY_MS).unref();
    return undefined;
  }

  /**
   * Written before the real call: if the process dies from here on, the record says
   * "running" and comes back "unknown". Resolves once this write (and every one queued
   * before it) is done; the caller awaits it before calling the operation.
   */
  running(point: PointName, input: Record<string, unknown>): Promise<ErrorData | undefined> {
    const ref = this.init.digests.of(input);
    this.keep(ref, input);
    this.add({ phase: "operation", point, realStatus: "running", finalInputRef: ref, completed: this.completed, updatedAt: Date.now() });
    return this.flush();
  }

  /**
   * The real result exists: kept for the next write. The first after hook's checkpoint
   * ({@link inProgress}) writes it before that hook runs, so a crash in the after stage
   * leaves it ready for resume; when no after hook runs, the ending carries it (a crash
   * before the ending leaves "running", which recovery turns into "unknown", as a crash
   * during the call itself would).
   */
  succeeded(point: PointName, real: unknown, afterPayload: Record<string, unknown>, before: StageResult, facts: ExecutionFacts): void {
    const ref = this.init.digests.of(real);
    this.keep(ref, real);
    const billed = modelCharge(real);
    const result: StoredResult = {
      real: real ?? null, afterPayload,
      before: { ran: before.reports.length > 0, reached: before.reached, carries: before.carries, ...(facts.shortCircuitedBy ? { shortCircuitedBy: facts.shortCircuitedBy } : {}) },
    };
    this.add({
      phase: "after", point, realStatus: facts.realStatus, realResultRef: ref, attempts: facts.attempts, shortCircuitedBy: facts.shortCircuitedBy ?? null,
      completed: this.completed, ...billed, ...(facts.artifacts ? { artifacts: facts.artifacts } : {}), updatedAt: Date.now(),
    }, result);
  }

  /**
   * A split call awaits its result: the record lets go of this host (`owner` null, so any
   * host sharing the store may take it) and keeps the final input and what the before stage
   * left, sealed like a real result, for the request that reports the result.
   */
  awaiting(point: PointName, input: Record<string, unknown>, before: StageResult): Promise<ErrorData | undefined> {
    const result: StoredResult = { real: null, afterPayload: {}, input, before: { ran: before.reports.length > 0, reached: before.reached, carries: before.carries } };
    this.add({ phase: "awaiting", point, owner: null, completed: this.completed, updatedAt: Date.now() }, result);
    return this.flush();
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
    this.add({
      phase: unfinished ? "after" : "finished", owner: null, realStatus: facts.realStatus, attempts: facts.attempts, completed: this.completed, effectiveOutputRef,
      ...(unfinished ? {} : { inProgress: null }), ...(facts.artifacts ? { artifacts: facts.artifacts } : {}),
      outcome, error: error && { code: error.code, message: error.message }, updatedAt: Date.now(),
    });
    await this.flush();
  }

  /** Adds the entries not kept yet; true when there was one. */
  private skip(entries: NonNullable<StageResult["skipped"]>): boolean {
    let added = false;
    for (const e of entries) {
      if (this.skipped.some((k) => k.point === e.point && k.bindingId === e.bindingId)) continue;
      this.skipped.push({ point: e.point, bindingId: e.bindingId, hookRef: e.hookRef, reason: e.reason });
      added = true;
    }
    return added;
  }

  /**
   * A step's log as the row keeps it: counts only. The lines are guest text that may quote
   * the payload, so they go where content goes, the opt-in payload store, under their keyed
   * digest (the row's `ref`), and nowhere when it is off.
   */
  private logsOf(step: StepReport): AuditLogs | null {
    if (!step.logs) return null;
    const counts = logCounts(step.logs);
    if (!this.init.payloads) return counts;
    const ref = this.init.digests.of(step.logs);
    this.keep(ref, step.logs);
    return { ...counts, ref };
  }

  /** Merges into the next write. */
  private add(changes: Partial<OperationRecord>, result?: StoredResult, audit: AuditRecord[] = []): void {
    const p = (this.pending ??= { changes: {}, audit: [] });
    p.changes = withChanges(p.changes, changes);
    if (result) p.result = result;
    p.audit.push(...audit);
  }

  /** Queues one store call with everything pending (the first one inserts the record); resolves with its failure, if any. */
  private flush(): Promise<ErrorData | undefined> {
    return this.write(() => {
      const p = this.pending;
      if (!p) return this.lastWrite;
      this.pending = undefined;
      const { store, operationId } = this.init;
      // A finished operation keeps no real result (the store would delete it in the same write).
      const result = p.changes.phase === "finished" ? undefined : p.result;
      if (this.unwritten) {
        const record = withChanges(this.unwritten, p.changes);
        this.unwritten = undefined;
        // A record that was not inserted is inserted by the next write (the ending), audit rows included.
        return (this.lastWrite = store.insert(record, p.audit, result).catch((err: unknown) => {
          this.unwritten ??= record;
          if (this.pending) this.pending.audit.unshift(...p.audit);
          else this.pending = { changes: {}, audit: [...p.audit] };
          throw err;
        }));
      }
      return (this.lastWrite = store.update(operationId, p.changes, result, p.audit));
    });
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

const NOTHING: Promise<undefined> = Promise.resolve(undefined);

/** How long a later after hook's checkpoint waits for another write to take it along before it is written on its own. */
export const CHECKPOINT_DELAY_MS = 2;

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
