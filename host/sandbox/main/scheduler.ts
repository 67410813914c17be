/**
 * The scheduler: puts tasks (calls, a stage, a chunk batch, stages of several operations)
 * on the lanes LanePool offers, queues them when none is free (stages that wait together go
 * to a worker as one task, stage-batch.ts), watches every guest call's clock, and turns a
 * timeout, a cancellation or a dead worker into a result. Each caller's task is one
 * ScheduledTask (scheduled-task.ts), which owns its abort listener and is answered once.
 */
import { clockLimit } from "./clock-limit.js";
import { cancelledBeforeStart, cancelledByCaller, closedDuringCall, sandboxClosed } from "../../errors/call-errors.js";
import { guestTimedOut, queueFull, restartLimited, workerDied, workersFailToStart } from "../../errors/worker-errors.js";
import type { ErrorData } from "../../errors/sluice-error.js";
import type { StageInput, StageResult } from "../../pipeline/run-steps.js";
import type { Lane } from "./lane.js";
import type { LanePool } from "./lane-pool.js";
import { moduleIdOf, type LoadedModules } from "./loaded-modules.js";
import { isMissingModules } from "../worker/module-cache.js";
import { PROGRESS_BYTES, PROGRESS_CANCELLED, PROGRESS_WAITING, type CallSpec, type StageTask, type Task, type WireStageResult, fromWire } from "../protocol.js";
import type { RestartBudget } from "./restart-budget.js";
import type { ResolvedOptions } from "./sandbox-options.js";
import { NO_PROGRESS, ScheduledTask, type StageStep, type StepSeen, type TaskWork, type Watched } from "./scheduled-task.js";
import { runStages, STAGES_PER_TASK, type StageBatchHost } from "./stage-batch.js";
import { watchClock } from "./watch-clock.js";
import { withKeys } from "../../objects/with-keys.js";

export { NO_PROGRESS, type StageStep, type StepSeen, type Watched } from "./scheduled-task.js";
export type StageOutcome = Watched<StageResult>;

/** How often a task whose caller asked to be told its running step is looked at: a quicker task is never looked at. */
export const STEP_LOOK_MS = 2;

export class Scheduler implements StageBatchHost {
  /** Tasks waiting for a free lane, in arrival order (see drain). */
  private readonly waiting: ScheduledTask[] = [];
  private drainScheduled = false;
  private shut = false;
  /** Tasks running on a lane now. */
  private running = 0;
  /** Guests still running for callers that cancelled (answered already, their clocks still kept). */
  private abandoned = 0;
  /** Operations the host has in flight (Sandbox.operationsInFlight): 0 when no host says. */
  operations = 0;
  /** Recent worker time per task (µs, moving average): decides whether the caller polls. */
  private busyMicros = 0;
  /** Takes a waiting task out of the queue (its caller cancelled). */
  private readonly leave = (t: ScheduledTask): void => {
    const at = this.waiting.indexOf(t);
    if (at >= 0) this.waiting.splice(at, 1);
  };

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

  /**
   * True while tasks run or wait, or a guest whose caller cancelled still runs: the sandbox
   * does not rest under it (resting would retire its worker, and its timeout would then end
   * that worker unreported).
   */
  get busy(): boolean {
    return this.running > 0 || this.waiting.length > 0 || this.abandoned > 0;
  }

  /** True once close() was called: tasks in flight end with EXECUTOR_CLOSED. */
  get closed(): boolean {
    return this.shut;
  }

  /** Starts what waits, now that a lane is free. */
  laneReady(): void {
    this.drain();
  }

  /** Answers every waiting task with the reason workers do not start. */
  failWaiting(error: Error): void {
    const data = workersFailToStart(error.message);
    for (const t of this.waiting.splice(0)) t.settle({ ok: false, index: 0, error: data });
  }

  /** Calls in flight end with EXECUTOR_CLOSED; waiting tasks are answered so now. */
  close(): void {
    this.shut = true;
    for (const t of this.waiting.splice(0)) t.settle({ ok: false, index: 0, error: closedDuringCall() });
  }

  /**
   * Runs a whole worker task on a free lane now, or queues it: refused with QUEUE_FULL past
   * maxQueue unless `waits` (work that follows an operation's real call, see Sandbox.runStage).
   */
  schedule<T>(task: Task, limits: number[], signal?: AbortSignal, waits = false): Promise<Watched<T>> {
    return this.admit(new ScheduledTask<T>({ kind: "task", task, limits, look: undefined }, signal), false, waits);
  }

  /** One operation's stage: run with the other stages waiting beside it when no worker is free. `waits`: never refused for the queue's length. */
  stageTask(stage: StageInput, steps: readonly StageStep[], signal: AbortSignal | undefined, seen?: StepSeen, waits = false): Promise<StageOutcome> {
    if (this.closed) throw sandboxClosed();
    return this.admit(new ScheduledTask<StageResult>({ kind: "stage", stage, steps, seen }, signal), false, waits);
  }

  /**
   * Starts a task on a free lane now, or queues it. `readmitted`: a task admitted before
   * whose worker died before it started (or whose batch failed); it goes first, whatever the
   * queue holds. `waits`: queued behind the others whatever the queue's length.
   */
  admit<T>(t: ScheduledTask<T>, readmitted: boolean, waits = false): Promise<Watched<T>> {
    this.touch();
    const lane = this.waiting.length === 0 ? this.lanes.freeLane(true) : undefined;
    if (lane) {
      void this.start(lane, t);
      return t.outcome;
    }
    this.drainSoon();
    // Refused now rather than after waiting for a worker (checked again when one is free).
    const refused = this.restarts.exhausted() ? this.refusal(t.work) : undefined;
    if (refused) t.settle(refused);
    else this.enqueue(t, readmitted, waits);
    return t.outcome;
  }

  private enqueue(t: ScheduledTask, readmitted: boolean, waits: boolean): void {
    if (t.cancelled) return void t.settle({ ok: false, index: 0, error: cancelledBeforeStart() });
    if (this.lanes.failingToStart) return void t.settle({ ok: false, index: 0, error: workersFailToStart() });
    if (!readmitted && !waits && this.waiting.length >= this.options.maxQueue + this.lanes.openSlots()) {
      return void t.settle({ ok: false, index: 0, error: queueFull(this.options.maxQueue) });
    }
    t.wait(this.leave);
    if (readmitted) this.waiting.unshift(t);
    else this.waiting.push(t);
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
      let n = 1;
      if (this.waiting[0]!.work.kind === "stage") while (n < this.waiting.length && n < STAGES_PER_TASK && this.waiting[n]!.work.kind === "stage") n++;
      const taken = this.waiting.splice(0, n);
      if (taken.length === 1) void this.start(lane, taken[0]!);
      else void runStages(this, lane, taken as ScheduledTask<StageResult>[]);
    }
  }

  /**
   * Runs one task alone on `lane` and answers it. A cancellation while the task still waits
   * on the lane behind another withdraws it (the worker skips it). Once its guest runs, the
   * caller is answered at once and the guest runs on within its own limits (its clock still
   * stops it): terminating its worker would cost a restart, charged to the plugin, each time
   * a client goes away mid-hook, which any client can do at will. The look (the work's
   * `look` or `seen`) is told the index of the call running, each STEP_LOOK_MS while the
   * task runs (a task that ends sooner is never looked at).
   */
  async start<T>(lane: Lane, t: ScheduledTask<T>): Promise<void> {
    if (t.cancelled) return void t.settle({ ok: false, index: 0, error: cancelledBeforeStart() });
    const work = t.work;
    // Checked first: the calls are listed only when a refusal is possible at all (this runs for every task).
    const refused = this.restarts.exhausted() ? this.refusal(work) : undefined;
    if (refused) return void t.settle(refused);
    const task = work.kind === "task" ? work.task : this.stageWire(work.stage, work.steps);
    const limits = work.kind === "task" ? work.limits : work.steps.map((s) => clockLimit(s.module, s.timeoutMs));
    const look = work.kind === "task" ? work.look : work.seen;
    const progress = new SharedArrayBuffer(PROGRESS_BYTES);
    const index = new Int32Array(progress, 0, 2);
    Atomics.store(index, 0, PROGRESS_WAITING);
    let stop: { index: number; error: ErrorData } | undefined;
    // The task's own reply (or its lane's end), still awaited after a cancellation answered the caller.
    let reply: Promise<unknown> | undefined;
    let detached = false;
    // Only a task that can be cancelled races its reply against its answer.
    const cancellable = t.signal !== undefined;
    const replyOf = (posted: Promise<unknown>): Promise<unknown> => { reply = posted; return cancellable ? Promise.race([posted, t.outcome]) : posted; };
    t.run((reason) => {
      // Finished: its reply is on the way, and the worker may already run the next task.
      if (Atomics.load(index, 0) >= limits.length) return undefined;
      stop ??= { index: Math.max(0, Atomics.load(index, 0)), error: cancelledByCaller(reason) };
      // Not yet taken, the worker skips it; running, its clock is kept until its reply.
      if (Atomics.compareExchange(index, 0, PROGRESS_WAITING, PROGRESS_CANCELLED) !== PROGRESS_WAITING) detached = true;
      return { ok: false, ...stop };
    });
    this.running++;
    const unwatch = watchClock(progress, limits, (i) => {
      stop = { index: i, error: guestTimedOut(i, limits[i]) };
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
      if (stop) t.settle({ ok: false, ...stop });
      else t.settle({ ok: true, value: (work.kind === "stage" ? fromWire(value as WireStageResult, work.stage.payload) : value) as T });
    } catch (err) {
      if (stop) {
        this.chargeTimeout(task, stop);
        t.settle({ ok: false, ...stop });
      } else if (this.closed) {
        t.settle({ ok: false, index: 0, error: closedDuringCall() });
      } else if (Atomics.compareExchange(index, 0, PROGRESS_WAITING, PROGRESS_CANCELLED) === PROGRESS_WAITING) {
        // Queued behind a task whose worker died: it never started, so it runs elsewhere.
        this.admit(t, true);
      } else {
        const i = Math.max(0, Atomics.load(index, 0));
        t.settle({ ok: false, index: i, error: workerDied(i, (err as Error)?.message ?? String(err)) });
      }
    } finally {
      this.running--;
      clearInterval(looking);
      // A cancelled task still running keeps its clock until it ends; a timeout then costs its worker, as any timeout does.
      if (detached && reply) {
        this.abandoned++;
        void reply.then(() => { this.abandoned--; unwatch(); }, () => { this.abandoned--; unwatch(); if (stop) this.chargeTimeout(task, stop); });
      } else {
        unwatch();
      }
      this.drain();
    }
  }

  /** The worker task of one stage run alone. */
  private stageWire(stage: StageInput, steps: readonly StageStep[]): StageTask {
    return { kind: "stage", stage, calls: steps.map((s) => this.modules.spec(s.module, s.kvScope)), progress: NO_PROGRESS, kvPath: this.options.kvPath };
  }

  /** The specs of a batch's steps (stage-batch.ts). */
  spec(step: StageStep): CallSpec {
    return this.modules.spec(step.module, step.kvScope);
  }

  get kvPath(): string | null {
    return this.options.kvPath;
  }

  /**
   * A guest that ran past its time limit cost its worker: a restart charged to its module.
   * (A chunk batch counts its calls chunk after chunk over the same steps.) A cancellation
   * costs none: it never terminates a worker.
   */
  private chargeTimeout(task: Task, stop: { index: number; error: ErrorData }): void {
    if (stop.error.code === "GUEST_TIMEOUT") this.restarts.spend(task.calls[stop.index % task.calls.length]?.moduleId ?? "");
  }

  /** WORKER_RESTART_LIMITED when one of the modules the work would run has used up the restart budget. */
  private refusal(work: TaskWork): Watched<never> | undefined {
    const offender = this.restarts.refused(modulesOf(work));
    return offender === undefined ? undefined : { ok: false, index: 0, error: restartLimited(offender) };
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

/** The modules the work would run: a stage's steps already marked failed do not run. */
function modulesOf(work: TaskWork): string[] {
  if (work.kind === "stage") return work.steps.filter((_, i) => !work.stage.failed?.[i]).map((s) => moduleIdOf(s.module));
  const task = work.task;
  return (task.kind === "stage" ? task.calls.filter((_, i) => !task.stage.failed?.[i]) : task.calls).map((c) => c.moduleId);
}
