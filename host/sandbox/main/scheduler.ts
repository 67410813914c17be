/**
 * The scheduler: puts tasks (calls, a stage, a chunk batch, stages of several operations)
 * on the lanes LanePool offers, queues them when none is free (stages that wait together go
 * to a worker as one task), watches every guest call's clock, and turns a timeout, a
 * cancellation or a dead worker into a result. A task never fails for another operation's
 * guest: a batch that loses its worker runs its other stages again.
 */
import { cancelledBeforeStart, cancelledByCaller, cancelledWhileQueued, closedDuringCall, sandboxClosed } from "../../errors/call-errors.js";
import type { ErrorData } from "../../errors/sluice-error.js";
import type { StageInput, StageResult } from "../../pipeline/run-steps.js";
import type { Lane } from "./lane.js";
import type { LanePool } from "./lane-pool.js";
import type { LoadedModule } from "./load-module.js";
import { moduleIdOf, type KvScope, type LoadedModules } from "./loaded-modules.js";
import { isMissingModules } from "../worker/module-cache.js";
import { PROGRESS_BYTES, PROGRESS_CANCELLED, PROGRESS_WAITING, type CallSpec, type StagesTask, type StageTask, type Task, type WireStageResult, fromWire } from "../protocol.js";
import type { RestartBudget } from "./restart-budget.js";
import type { ResolvedOptions } from "./sandbox-options.js";
import { watchClock } from "./watch-clock.js";
import { withKeys } from "../../objects/with-keys.js";

/** Stages of other operations that waited go to a worker together, at most this many. */
const STAGES_PER_TASK = 16;
/** How often a task whose caller asked to be told its running step is looked at: a quicker task is never looked at. */
export const STEP_LOOK_MS = 2;

/** Tasks carry their lane's progress words; this placeholder is replaced when a lane takes the task. */
export const NO_PROGRESS = new SharedArrayBuffer(PROGRESS_BYTES);

export type StageStep = { module: LoadedModule; timeoutMs: number; kvScope?: KvScope };
export type Watched<T> = { ok: true; value: T } | { ok: false; index: number; error: ErrorData };
export type StageOutcome = Watched<StageResult>;
interface Queued {
  signal: AbortSignal | undefined;
  resolve: (outcome: Watched<unknown>) => void;
  detach?: () => void;
}
/** Told the index of the stage's step the worker runs, when a look finds it running (see runWatched). */
export type StepSeen = (step: number) => void;
type WaitingStage = Queued & { stage: StageInput; steps: readonly StageStep[]; seen?: StepSeen };
type Waiting = WaitingStage | (Queued & { task: Task; limits: number[] });

export class Scheduler {
  /** Tasks waiting for a free lane, in arrival order (see drain). */
  private readonly waiting: Waiting[] = [];
  private drainScheduled = false;
  private closed = false;
  /** Tasks running on a lane now. */
  private running = 0;
  /** Operations the host has in flight (Sandbox.operationsInFlight): 0 when no host says. */
  operations = 0;
  /** Recent worker time per task (µs, moving average): decides whether the caller polls. */
  private busyMicros = 0;

  /** `touch`: a call is coming (the sandbox takes its workers back if it was resting). */
  constructor(
    private readonly options: ResolvedOptions,
    private readonly lanes: LanePool,
    private readonly modules: LoadedModules,
    private readonly restarts: RestartBudget,
    private readonly touch: () => void,
  ) {}

  /** Tasks waiting for a worker. */
  get queueSize(): number {
    return this.waiting.length;
  }

  /** True while tasks run or wait. */
  get busy(): boolean {
    return this.running > 0 || this.waiting.length > 0;
  }

  /** Starts what waits, now that a lane is free. */
  laneReady(): void {
    this.drain();
  }

  /** Answers every waiting task with the reason workers do not start. */
  failWaiting(error: Error): void {
    const data: ErrorData = { code: "WORKER_CRASHED", message: `worker threads fail to start: ${error.message}` };
    for (const w of this.waiting.splice(0)) {
      w.detach?.();
      w.resolve({ ok: false, index: 0, error: data });
    }
  }

  /** Calls in flight end with EXECUTOR_CLOSED; waiting tasks are answered so now. */
  close(): void {
    this.closed = true;
    for (const w of this.waiting.splice(0)) {
      w.detach?.();
      w.resolve({ ok: false, index: 0, error: closedDuringCall() });
    }
  }

  /**
   * Runs a task on a free lane now, or queues it: refused with QUEUE_FULL past maxQueue
   * unless `waits` (work that follows an operation's real call, see Sandbox.runStage).
   */
  schedule<T>(task: Task, limits: number[], signal?: AbortSignal, readmitted = false, waits = false): Promise<Watched<T>> {
    this.touch();
    const lane = this.waiting.length === 0 ? this.lanes.freeLane(true) : undefined;
    if (lane) return this.runWatched<T>(lane, task, limits, signal);
    this.drainSoon();
    // Refused now rather than after waiting for a worker (checked again when one is free).
    const refused = this.restarts.exhausted() ? this.refusal(task.calls) : undefined;
    return refused ? Promise.resolve(refused) : this.enqueue<T>({ task, limits }, signal, readmitted, waits);
  }

  /** `readmitted`: a stage admitted before, run again on its own after its batch failed; `waits`: never refused for the queue's length. */
  async stageTask(stage: StageInput, steps: readonly StageStep[], signal: AbortSignal | undefined, readmitted: boolean, seen?: StepSeen, waits = false): Promise<StageOutcome> {
    if (this.closed) throw sandboxClosed();
    this.touch();
    const lane = this.waiting.length === 0 ? this.lanes.freeLane(true) : undefined;
    if (lane) return this.runOneStage(lane, stage, steps, signal, seen);
    this.drainSoon();
    const refused = this.restarts.exhausted() ? this.refusal(steps.filter((_, i) => !stage.failed?.[i]).map((s) => ({ moduleId: moduleIdOf(s.module) }))) : undefined;
    return refused ?? this.enqueue<StageResult>(seen ? { stage, steps, seen } : { stage, steps }, signal, readmitted, waits);
  }

  /**
   * `readmitted`: a task admitted before whose worker died before it started; it goes first,
   * whatever the queue holds. `waits`: queued behind the others whatever the queue's length.
   */
  private enqueue<T>(job: { stage: StageInput; steps: readonly StageStep[]; seen?: StepSeen } | { task: Task; limits: number[] }, signal?: AbortSignal, readmitted = false, waits = false): Promise<Watched<T>> {
    if (signal?.aborted) return Promise.resolve({ ok: false, index: 0, error: cancelledBeforeStart() });
    if (this.lanes.failingToStart) {
      return Promise.resolve({ ok: false, index: 0, error: { code: "WORKER_CRASHED", message: "worker threads fail to start" } });
    }
    if (!readmitted && !waits && this.waiting.length >= this.options.maxQueue + this.lanes.openSlots()) {
      return Promise.resolve({ ok: false, index: 0, error: { code: "QUEUE_FULL", message: `the sandbox queue is full (${this.options.maxQueue} waiting tasks); retry later` } });
    }
    return new Promise<Watched<T>>((resolve) => {
      // Key by key: `{ ...job, signal, resolve }` would give every entry a hidden class of its own on Node 20 (host/objects/with-keys.ts).
      const entry: Waiting = "task" in job
        ? { task: job.task, limits: job.limits, signal, resolve: resolve as Waiting["resolve"] }
        : { stage: job.stage, steps: job.steps, signal, resolve: resolve as Waiting["resolve"], seen: job.seen };
      if (signal) {
        const onAbort = (): void => {
          const at = this.waiting.indexOf(entry);
          if (at < 0) return;
          this.waiting.splice(at, 1);
          resolve({ ok: false, index: 0, error: cancelledWhileQueued() });
        };
        entry.detach = () => signal.removeEventListener("abort", onAbort);
        signal.addEventListener("abort", onAbort, { once: true });
      }
      if (readmitted) this.waiting.unshift(entry);
      else this.waiting.push(entry);
    });
  }

  private runOneStage(lane: Lane, stage: StageInput, steps: readonly StageStep[], signal?: AbortSignal, seen?: StepSeen): Promise<StageOutcome> {
    const task: StageTask = { kind: "stage", stage, calls: steps.map((s) => this.modules.spec(s.module, s.kvScope)), progress: NO_PROGRESS, kvPath: this.options.kvPath };
    return this.runWatched<WireStageResult>(lane, task, steps.map((s) => Math.min(s.timeoutMs, s.module.limits.timeoutMs)), signal, seen)
      .then((r) => r.ok ? { ok: true, value: fromWire(r.value, stage.payload) } : r);
  }

  /**
   * A task that finds no idle worker waits for the end of this turn of the event loop, so
   * the stages that arrive together (the continuations of one batch of results) go to a
   * working worker's next slot as one task rather than one by one.
   */
  private drainSoon(): void {
    if (this.drainScheduled) return;
    this.drainScheduled = true;
    setImmediate(() => { this.drainScheduled = false; this.drain(); });
  }

  /** Starts waiting tasks while lanes are free: stages at the head of the queue go together. */
  private drain(): void {
    for (let lane = this.lanes.freeLane(); lane && this.waiting.length > 0 && !this.closed; lane = this.lanes.freeLane()) {
      const head = this.waiting[0]!;
      if ("task" in head) {
        this.waiting.shift();
        head.detach?.();
        void this.runWatched(lane, head.task, head.limits, head.signal).then(head.resolve);
        continue;
      }
      let n = 1;
      while (n < this.waiting.length && n < STAGES_PER_TASK && "stage" in this.waiting[n]!) n++;
      const batch = this.waiting.splice(0, n) as WaitingStage[];
      for (const w of batch) w.detach?.();
      if (batch.length === 1) void this.runOneStage(lane, batch[0]!.stage, batch[0]!.steps, batch[0]!.signal, batch[0]!.seen).then(batch[0]!.resolve);
      else void this.runStages(lane, batch);
    }
  }

  /**
   * Several operations' stages in one task. If the task fails (a timeout, a cancellation, a
   * dead worker), the stage that caused it gets the error and every other stage runs again
   * on its own: a stage never fails for another operation's guest.
   */
  private async runStages(lane: Lane, batch: WaitingStage[]): Promise<void> {
    const offsets: number[] = [];
    let n = 0;
    for (const w of batch) { offsets.push(n); n += w.steps.length; }
    // One word per stage: the worker takes a stage (0 → 1) before running it, so a caller
    // can withdraw one that has not started (0 → 2) without touching the others. A stage
    // already running is answered CALL_CANCELLED at once and left to finish (within its
    // time limit): stopping it would cost the other operations' stages their worker.
    const claims = new Int32Array(new SharedArrayBuffer(4 * batch.length));
    const settled = batch.map(() => false);
    const settle = (j: number, outcome: StageOutcome): void => {
      if (settled[j]) return;
      settled[j] = true;
      batch[j]!.resolve(outcome);
    };
    const listeners = batch.map((w, j) => {
      const onAbort = (): void => {
        Atomics.compareExchange(claims, j, 0, 2);
        settle(j, { ok: false, index: 0, error: cancelledByCaller(w.signal?.reason) });
      };
      w.signal?.addEventListener("abort", onAbort, { once: true });
      return () => w.signal?.removeEventListener("abort", onAbort);
    });
    const task: StagesTask = {
      kind: "stages",
      stages: batch.map((w) => w.stage),
      claims: claims.buffer as SharedArrayBuffer,
      calls: batch.flatMap((w) => w.steps.map((s) => this.modules.spec(s.module, s.kvScope))),
      progress: NO_PROGRESS,
      kvPath: this.options.kvPath,
    };
    const limits = batch.flatMap((w) => w.steps.map((s) => Math.min(s.timeoutMs, s.module.limits.timeoutMs)));
    // The task's running call, told to the stage it belongs to.
    const look = batch.some((w) => w.seen) ? (i: number): void => { const j = offsets.findLastIndex((o) => o <= i); batch[j]?.seen?.(i - offsets[j]!); } : undefined;
    const r = await this.runWatched<(WireStageResult | null)[]>(lane, task, limits, undefined, look);
    for (const off of listeners) off();
    if (r.ok) {
      batch.forEach((w, j) => {
        const value = r.value[j];
        if (value) settle(j, { ok: true, value: fromWire(value, w.stage.payload) });
      });
      return;
    }
    if (this.closed || r.error.code === "EXECUTOR_CLOSED") {
      batch.forEach((_, j) => settle(j, { ok: false, index: 0, error: closedDuringCall() }));
      return;
    }
    // The stage that caused the failure gets it; every other runs again on its own (those
    // that finished before it lost their results with the worker, and run again too).
    const refusedBeforeRunning = r.error.code === "WORKER_RESTART_LIMITED" || r.error.code === "QUEUE_FULL";
    const culprit = refusedBeforeRunning ? -1 : offsets.findLastIndex((o) => o <= r.index);
    batch.forEach((w, j) => {
      if (settled[j]) return;
      if (j === culprit) return settle(j, { ok: false, index: Math.max(0, r.index - offsets[j]!), error: r.error });
      // runStage throws only once the sandbox is closed.
      this.stageTask(w.stage, w.steps, w.signal, true, w.seen).then((o) => settle(j, o), () => settle(j, { ok: false, index: 0, error: closedDuringCall() }));
    });
  }

  /** `look`: told the index of the call running, each STEP_LOOK_MS while the task runs (a task that ends sooner is never looked at). */
  private async runWatched<T>(lane: Lane, task: Task, limits: number[], signal?: AbortSignal, look?: (call: number) => void): Promise<Watched<T>> {
    if (signal?.aborted) return { ok: false, index: 0, error: cancelledBeforeStart() };
    // Checked first: the calls are listed only when a refusal is possible at all (this runs for every task).
    const refused = this.restarts.exhausted() ? this.refusal(task.kind === "stage" ? task.calls.filter((_, i) => !task.stage.failed?.[i]) : task.calls) : undefined;
    if (refused) return refused;
    const progress = new SharedArrayBuffer(PROGRESS_BYTES);
    const index = new Int32Array(progress, 0, 2);
    Atomics.store(index, 0, PROGRESS_WAITING);
    let stop: { index: number; error: ErrorData } | undefined;
    let cancelledEarly: (() => void) | undefined;
    // Only a call that can be cancelled races its reply against the cancellation.
    const early = signal ? new Promise<void>((resolve) => { cancelledEarly = resolve; }) : undefined;
    // The task's own reply (or its lane's end), still awaited after a cancellation answered the caller.
    let reply: Promise<unknown> | undefined;
    let detached = false;
    const replyOf = (posted: Promise<unknown>): Promise<unknown> => { reply = posted; return early ? Promise.race([posted, early]) : posted; };
    const onCancel = (): void => {
      // Finished: its reply is on the way, and the worker may already run the next task.
      if (Atomics.load(index, 0) >= limits.length) return;
      stop ??= { index: Math.max(0, Atomics.load(index, 0)), error: cancelledByCaller(signal?.reason) };
      // Still queued behind another task on the lane: the worker will skip it. Running: the
      // caller is answered now and the guest runs on within its own limits (its clock still
      // stops it): terminating its worker would cost a restart, charged to the plugin, each
      // time a client goes away mid-hook, which any client can do at will.
      if (Atomics.compareExchange(index, 0, PROGRESS_WAITING, PROGRESS_CANCELLED) !== PROGRESS_WAITING) detached = true;
      cancelledEarly?.();
    };
    this.running++;
    signal?.addEventListener("abort", onCancel, { once: true });
    const unwatch = watchClock(progress, limits, (i) => {
      stop = { index: i, error: { code: "GUEST_TIMEOUT", message: `guest call ${i} ran past its ${limits[i]} ms limit; its worker was terminated`, details: { call: i, limitMs: limits[i] } } };
      lane.kill();
    });
    const looking = look ? setInterval(() => { const i = Atomics.load(index, 0); if (i >= 0 && i < limits.length) look(i); }, STEP_LOOK_MS) : undefined;
    try {
      // A worker is sent each module once; one that has since dropped it asks again.
      let value = await replyOf(lane.post(withKeys(task, { progress, calls: this.modules.withModules(lane, task.calls, false) }), this.spinFor(lane)));
      if (isMissingModules(value) && !stop) {
        Atomics.store(index, 0, PROGRESS_WAITING);
        value = await replyOf(lane.post(withKeys(task, { progress, calls: this.modules.withModules(lane, task.calls, true) }), this.spinFor(lane)));
      }
      // Capped, so one slow task (a GC pause) does not stop the polling for the next several.
      this.busyMicros += (Math.min(lane.lastBusyMicros, 2 * this.options.spin.caller) - this.busyMicros) / 8;
      if (stop) return { ok: false, ...stop };
      return { ok: true, value: value as T };
    } catch (err) {
      if (stop) {
        this.chargeTimeout(task, stop);
        return { ok: false, ...stop };
      }
      if (this.closed) return { ok: false, index: 0, error: closedDuringCall() };
      // Queued behind a task whose worker died: it never started, so it runs elsewhere.
      if (Atomics.compareExchange(index, 0, PROGRESS_WAITING, PROGRESS_CANCELLED) === PROGRESS_WAITING) return this.schedule<T>(task, limits, signal, true);
      const i = Math.max(0, Atomics.load(index, 0));
      const message = (err as Error)?.message ?? String(err);
      return { ok: false, index: i, error: { code: "WORKER_CRASHED", message: `the worker running the call died: ${message}`, details: { call: i } } };
    } finally {
      this.running--;
      clearInterval(looking);
      signal?.removeEventListener("abort", onCancel);
      // A cancelled task still running keeps its clock until it ends; a timeout then costs its worker, as any timeout does.
      if (detached && reply) void reply.then(unwatch, () => { unwatch(); if (stop) this.chargeTimeout(task, stop); });
      else unwatch();
      this.drain();
    }
  }

  /**
   * A guest that ran past its time limit cost its worker: a restart charged to its module.
   * (A chunk batch counts its calls chunk after chunk over the same steps.) A cancellation
   * costs none: it never terminates a worker.
   */
  private chargeTimeout(task: Task, stop: { index: number; error: ErrorData }): void {
    if (stop.error.code === "GUEST_TIMEOUT") this.restarts.spend(task.calls[stop.index % task.calls.length]?.moduleId ?? "");
  }

  /** WORKER_RESTART_LIMITED when one of these modules has used up the restart budget. */
  private refusal(calls: readonly Pick<CallSpec, "moduleId">[]): Watched<never> | undefined {
    const offender = this.restarts.refused(calls.map((c) => c.moduleId));
    if (offender === undefined) return undefined;
    return { ok: false, index: 0, error: { code: "WORKER_RESTART_LIMITED", message: "this plugin caused too many worker restarts recently; its calls are refused until the restart budget refills", details: { moduleId: offender } } };
  }

  /**
   * The caller polls only when nothing else needs it: its operation is the host's only one
   * (a poll holds the event loop, which the others' requests and answers need), no other
   * task runs or waits, and the worker's tasks have been short.
   */
  private spinFor(lane: Lane): number {
    const budget = this.options.spin.caller;
    return budget > 0 && this.operations <= 1 && this.running === 1 && lane.inFlight === 0 && this.waiting.length === 0 && this.busyMicros * 1.25 + 20 <= budget ? budget : 0;
  }
}
