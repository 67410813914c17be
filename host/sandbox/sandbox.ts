import { Piscina } from "piscina";
import { encode } from "../../abi/codec.js";
import type { Outcome, RequestEnvelope } from "../../abi/envelope.js";
import { SluiceError, type ErrorData } from "../errors/sluice-error.js";
import { loadModule, sha256Async, type LoadedModule, type LoadOptions } from "./load-module.js";
import type { StageInput, StageResult } from "../pipeline/run-steps.js";
import { PROGRESS_BYTES, PROGRESS_CANCELLED, PROGRESS_WAITING, type CallReport, type CallSpec, type CallsTask, type LogLine, type StagesTask, type StageTask, type Task, type WireStageResult, fromWire } from "./protocol.js";
import { workerFile } from "./worker-file.js";
import { Lane } from "./lane.js";
import { watchClock } from "./watch-clock.js";
import { RestartBudget } from "./restart-budget.js";
import { resolveOptions, type ResolvedOptions, type SandboxOptions } from "./sandbox-options.js";

export type { SandboxOptions } from "./sandbox-options.js";
import { isMissingModules } from "./module-cache.js";

export interface CallOptions {
  /** Overrides the plugin's time limit for this call (never above it). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Key-value scope: the space, and the owner within it (the host passes the plugin id, so a plugin's paired before and after hooks share their data). */
  kvScope?: { spaceId: string; ownerId: string };
  /** Also return the reply's decoded value and bytes. */
  raw?: boolean;
}

/** One call planned into a task. */
export interface PlannedCall {
  module: LoadedModule;
  request: Uint8Array;
  options?: Omit<CallOptions, "signal">;
}

export type InvokeResult =
  | { ok: true; outcome: Outcome; logs: LogLine[]; durationMs: number; memoryBytes: number; reply?: unknown; replyBytes?: Uint8Array }
  | { ok: false; error: ErrorData; logs: LogLine[]; durationMs: number; memoryBytes: number };

/**
 * Runs guest calls on a pool of worker threads with hard limits. Every failure of a guest
 * comes back as a result with a stable code; the sandbox itself keeps serving.
 *
 * @example
 * const sandbox = createSandbox({ workers: 2 });
 * const mod = await sandbox.load(wasmBytes);
 * const result = await sandbox.invoke(mod, request, { timeoutMs: 50 });
 * if (!result.ok) console.log(result.error.code);
 */
export class Sandbox {
  readonly options: ResolvedOptions;
  private readonly restarts: RestartBudget;
  /** Tasks waiting for a free lane, in arrival order (see drain). */
  private readonly waiting: Waiting[] = [];
  /** Compiled modules by id, to send to a worker that has not seen them. */
  private readonly compiled = new Map<string, WebAssembly.Module>();
  private readonly specs = new WeakMap<LoadedModule, Map<string, Omit<CallSpec, "request">>>();
  private readonly pool: Piscina;
  private readonly lanes = new Set<Lane>();
  private readyWaiters: (() => void)[] = [];
  private readonly cache = new Map<string, Promise<LoadedModule>>();
  private closed = false;
  private drainScheduled = false;
  /** The lanes were let go of after idleMs without calls (see rest()). */
  private resting = false;
  private idleTimer: NodeJS.Timeout | undefined;
  /** When the last call came (performance.now()). */
  private lastCall = 0;
  private readonly replacements = new Set<NodeJS.Timeout>();
  /** Workers in a row that died before serving. */
  private bootFailures = 0;
  /** Tasks running on a lane now. */
  private inFlight = 0;
  /** Recent worker time per task (µs, moving average): decides whether the caller polls. */
  private busyMicros = 0;

  constructor(options: SandboxOptions = {}) {
    this.options = resolveOptions(options);
    this.restarts = new RestartBudget(this.options.restarts);
    this.pool = new Piscina({
      filename: workerFile("worker-entry", ".cjs"),
      // Threads start for lane tasks (openLane), so a replacement starts when the sandbox says.
      minThreads: 0,
      maxThreads: this.options.workers + this.options.spareWorkers,
      idleTimeout: Number.POSITIVE_INFINITY,
      // Bounds the worker's JS heap only; guest memory is bounded by the module's own maximum.
      resourceLimits: { maxOldGenerationSizeMb: 256, stackSizeMb: 4 },
    });
    // A worker that dies with no task is replaced by Piscina; the event must not crash the host.
    this.pool.on("error", () => {});
    for (let i = 0; i < this.options.workers + this.options.spareWorkers; i++) this.openLane();
    this.maybeIdle();
  }

  /** Resolves when every worker is serving (calls made before then wait for the first one). */
  async ready(): Promise<void> {
    const full = this.options.workers + this.options.spareWorkers;
    while (!this.closed && [...this.lanes].filter((l) => l.ready && !l.dead).length < full) {
      if (this.bootFailures >= BOOT_FAILURES_REPORTED) throw new SluiceError("WORKER_CRASHED", "worker threads fail to start");
      this.busy();
      await new Promise<void>((resolve) => this.readyWaiters.push(resolve));
    }
    this.maybeIdle();
  }

  /** Workers alive now (the pool replaces terminated ones). */
  get threadCount(): number {
    return this.pool.threads.length;
  }

  /** Tasks waiting for a worker. */
  get queueSize(): number {
    return this.waiting.length;
  }

  /** True when calls to this module are refused for now because it caused too many worker restarts. */
  restartLimited(module: LoadedModule): boolean {
    return this.restarts.refused([moduleIdOf(module)]) !== undefined;
  }

  /** Validates, caps and compiles a guest once; later loads of the same bytes and limits share it. */
  async load(bytes: Uint8Array, options: LoadOptions = {}): Promise<LoadedModule> {
    // Hashed on the thread pool: a 15 MB module would hold the event loop for ~30 ms here.
    const sha256 = await sha256Async(bytes);
    const key = `${sha256}|${JSON.stringify(options.limits ?? {})}|${[...(options.capabilities ?? [])].sort().join(",")}`;
    let loaded = this.cache.get(key);
    if (!loaded) {
      loaded = loadModule(bytes, options, sha256);
      this.cache.set(key, loaded);
      // A refused module is not cached: the error is returned, and the next try checks again.
      loaded.catch(() => this.cache.delete(key));
    }
    return loaded;
  }

  /** Encodes the envelope and runs one call. */
  invoke(module: LoadedModule, request: RequestEnvelope, options: CallOptions = {}): Promise<InvokeResult> {
    return this.invokeBytes(module, encode(request), options);
  }

  /** Runs one call on an already encoded request. */
  async invokeBytes(module: LoadedModule, request: Uint8Array, options: CallOptions = {}): Promise<InvokeResult> {
    const [report] = await this.runCalls([{ module, request, options }], options.signal);
    return report!;
  }

  /**
   * Runs several calls in one worker task (one thread hop), each under its own time
   * limit. A call that times out or is cancelled ends the task: it and the calls after it
   * report the error, the calls before it keep their results only if the worker returned.
   */
  async runCalls(planned: readonly PlannedCall[], signal?: AbortSignal): Promise<InvokeResult[]> {
    if (this.closed) throw new SluiceError("EXECUTOR_CLOSED", "the sandbox is closed");
    const calls: CallSpec[] = planned.map(({ module, request, options = {} }) => ({
      ...this.spec(module, options.kvScope),
      request,
      ...(options.raw ? { raw: true } : {}),
    }));
    const limits = planned.map(({ module, options }) => Math.min(options?.timeoutMs ?? module.limits.timeoutMs, module.limits.timeoutMs));
    const task: CallsTask = { kind: "calls", calls, progress: NO_PROGRESS, kvPath: this.options.kvPath };
    const outcome = await this.schedule<CallReport[]>(task, limits, signal);
    if (outcome.ok) return outcome.value.map(toResult);
    return planned.map((_, i) => ({ ok: false, error: i < outcome.index ? notRun(outcome.error) : outcome.error, logs: [], durationMs: 0, memoryBytes: 0 }));
  }

  /**
   * Runs a whole stage of guest hooks in one task. When a step times out or its worker
   * dies, the task is lost: the result says which step, and the caller decides (see
   * pipeline/stage.ts, which re-runs the stage with that step marked failed). Stages of
   * other operations that wait for a worker together go to it as one task.
   */
  runStage(stage: StageInput, steps: readonly StageStep[], signal?: AbortSignal): Promise<StageOutcome> {
    return this.stageTask(stage, steps, signal, false);
  }

  /** `readmitted`: a stage admitted before, run again on its own after its batch failed. */
  private async stageTask(stage: StageInput, steps: readonly StageStep[], signal: AbortSignal | undefined, readmitted: boolean): Promise<StageOutcome> {
    if (this.closed) throw new SluiceError("EXECUTOR_CLOSED", "the sandbox is closed");
    this.busy();
    const lane = this.waiting.length === 0 ? this.freeLane(true) : undefined;
    if (lane) return this.runOneStage(lane, stage, steps, signal);
    this.drainSoon();
    const refused = this.refusal(steps.filter((_, i) => !stage.failed?.[i]).map((s) => ({ moduleId: moduleIdOf(s.module) })));
    return refused ?? this.enqueue<StageResult>({ stage, steps }, signal, readmitted);
  }

  /**
   * Runs the chunk stage for several chunks in one task (a stream that got ahead of its
   * hooks): each chunk starts from the holds the previous one left, and the batch stops at
   * a block or a fail-closed failure. One result per chunk that ran.
   */
  async runChunks(stage: StageInput, more: Record<string, unknown>[], steps: readonly StageStep[], signal?: AbortSignal): Promise<{ ok: true; value: StageResult[] } | { ok: false; index: number; error: ErrorData }> {
    if (this.closed) throw new SluiceError("EXECUTOR_CLOSED", "the sandbox is closed");
    const task: StageTask = { kind: "stage", stage, more, calls: steps.map((s) => this.spec(s.module, s.kvScope)), progress: NO_PROGRESS, kvPath: this.options.kvPath };
    const limits = steps.map((s) => Math.min(s.timeoutMs, s.module.limits.timeoutMs));
    const r = await this.schedule<WireStageResult[]>(task, Array.from({ length: more.length + 1 }, () => limits).flat(), signal);
    const given = [stage.payload, ...more];
    return r.ok ? { ok: true, value: r.value.map((v, k) => fromWire(v, given[k]!)) } : { ...r, index: r.index % steps.length };
  }

  /** Runs a task on a free lane now, or queues it (refused with QUEUE_FULL past maxQueue). */
  private schedule<T>(task: Task, limits: number[], signal?: AbortSignal, readmitted = false): Promise<Watched<T>> {
    this.busy();
    const lane = this.waiting.length === 0 ? this.freeLane(true) : undefined;
    if (lane) return this.runWatched<T>(lane, task, limits, signal);
    this.drainSoon();
    // Refused now rather than after waiting for a worker (checked again when one is free).
    const refused = this.refusal(task.calls);
    return refused ? Promise.resolve(refused) : this.enqueue<T>({ task, limits }, signal, readmitted);
  }

  /** `readmitted`: a task admitted before whose worker died before it started; it goes first, whatever the queue holds. */
  private enqueue<T>(job: { stage: StageInput; steps: readonly StageStep[] } | { task: Task; limits: number[] }, signal?: AbortSignal, readmitted = false): Promise<Watched<T>> {
    if (signal?.aborted) return Promise.resolve({ ok: false, index: 0, error: { code: "CALL_CANCELLED", message: "the call was cancelled before it started" } });
    if (this.bootFailures >= BOOT_FAILURES_REPORTED && ![...this.lanes].some((l) => l.ready && !l.dead)) {
      return Promise.resolve({ ok: false, index: 0, error: { code: "WORKER_CRASHED", message: "worker threads fail to start" } });
    }
    if (!readmitted && this.waiting.length >= this.options.maxQueue + this.openSlots()) {
      return Promise.resolve({ ok: false, index: 0, error: { code: "QUEUE_FULL", message: `the sandbox queue is full (${this.options.maxQueue} waiting tasks); retry later` } });
    }
    return new Promise<Watched<T>>((resolve) => {
      const entry: Waiting = { ...job, signal, resolve: resolve as Waiting["resolve"] };
      const onAbort = (): void => {
        const at = this.waiting.indexOf(entry);
        if (at < 0) return;
        this.waiting.splice(at, 1);
        resolve({ ok: false, index: 0, error: { code: "CALL_CANCELLED", message: "the call was cancelled while it waited for a worker" } });
      };
      entry.detach = () => signal?.removeEventListener("abort", onAbort);
      signal?.addEventListener("abort", onAbort, { once: true });
      if (readmitted) this.waiting.unshift(entry);
      else this.waiting.push(entry);
    });
  }

  private runOneStage(lane: Lane, stage: StageInput, steps: readonly StageStep[], signal?: AbortSignal): Promise<StageOutcome> {
    const task: StageTask = { kind: "stage", stage, calls: steps.map((s) => this.spec(s.module, s.kvScope)), progress: NO_PROGRESS, kvPath: this.options.kvPath };
    return this.runWatched<WireStageResult>(lane, task, steps.map((s) => Math.min(s.timeoutMs, s.module.limits.timeoutMs)), signal)
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
    for (let lane = this.freeLane(); lane && this.waiting.length > 0 && !this.closed; lane = this.freeLane()) {
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
      if (batch.length === 1) void this.runOneStage(lane, batch[0]!.stage, batch[0]!.steps, batch[0]!.signal).then(batch[0]!.resolve);
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
        settle(j, { ok: false, index: 0, error: { code: "CALL_CANCELLED", message: "the call was cancelled by the caller", details: { reason: String(w.signal?.reason ?? "aborted") } } });
      };
      w.signal?.addEventListener("abort", onAbort, { once: true });
      return () => w.signal?.removeEventListener("abort", onAbort);
    });
    const task: StagesTask = {
      kind: "stages",
      stages: batch.map((w) => w.stage),
      claims: claims.buffer as SharedArrayBuffer,
      calls: batch.flatMap((w) => w.steps.map((s) => this.spec(s.module, s.kvScope))),
      progress: NO_PROGRESS,
      kvPath: this.options.kvPath,
    };
    const limits = batch.flatMap((w) => w.steps.map((s) => Math.min(s.timeoutMs, s.module.limits.timeoutMs)));
    const r = await this.runWatched<(WireStageResult | null)[]>(lane, task, limits);
    for (const off of listeners) off();
    if (r.ok) {
      batch.forEach((w, j) => {
        const value = r.value[j];
        if (value) settle(j, { ok: true, value: fromWire(value, w.stage.payload) });
      });
      return;
    }
    if (this.closed || r.error.code === "EXECUTOR_CLOSED") {
      batch.forEach((_, j) => settle(j, { ok: false, index: 0, error: { code: "EXECUTOR_CLOSED", message: "the sandbox was closed" } }));
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
      this.stageTask(w.stage, w.steps, w.signal, true).then((o) => settle(j, o), () => settle(j, { ok: false, index: 0, error: { code: "EXECUTOR_CLOSED", message: "the sandbox was closed" } }));
    });
  }

  private spec(module: LoadedModule, kvScope: CallOptions["kvScope"]): Omit<CallSpec, "request"> {
    // One spec per module and kv scope, built once: specs are sent, never modified.
    const scope = module.capabilities.includes("kv") && kvScope ? `${kvScope.spaceId}\u0000${kvScope.ownerId}` : "";
    let byScope = this.specs.get(module);
    if (!byScope) this.specs.set(module, (byScope = new Map()));
    let spec = byScope.get(scope);
    if (!spec) {
      spec = callSpec(module, kvScope);
      if (byScope.size >= 1024) byScope.clear();
      byScope.set(scope, spec);
      if (!this.compiled.has(spec.moduleId)) this.compiled.set(spec.moduleId, module.module);
    }
    return spec;
  }

  private openLane(): void {
    const lane = new Lane(this.pool, this.options.spin.worker, {
      ready: () => {
        this.bootFailures = 0;
        for (const wake of this.readyWaiters.splice(0)) wake();
        this.drain();
      },
      ended: (l, error) => {
        this.lanes.delete(l);
        if (this.closed || l.retired) return;
        // A worker that never started serving: back off, and after a few in a row tell the
        // callers waiting for one instead of letting them wait forever.
        if (!l.ready && ++this.bootFailures >= BOOT_FAILURES_REPORTED) this.failWaiting(error);
        const delay = !l.ready ? Math.min(5_000, 100 * 2 ** this.bootFailures)
          // A spare has taken over. The replacement's boot (about 100 ms of CPU) starts after
          // a pause, not while the pool catches up with the calls the dead worker delayed.
          : this.options.spareWorkers > 0 ? REPLACE_AFTER_MS : 0;
        try {
          this.options.onWorkerEnded?.({ booted: l.ready, replaceInMs: delay, reason: reasonOf(error) });
        } catch (err) {
          process.emitWarning(`an onWorkerEnded listener threw: ${(err as Error)?.message ?? String(err)}`);
        }
        const timer: NodeJS.Timeout = setTimeout(() => {
          this.replacements.delete(timer);
          if (!this.closed && !this.resting) this.openLane();
        }, delay);
        this.replacements.add(timer);
      },
    });
    this.lanes.add(lane);
  }

  /** A call is coming: take the workers back if they were let go of. */
  private busy(): void {
    this.lastCall = performance.now();
    if (this.closed) return;
    if (this.resting) {
      this.resting = false;
      const live = [...this.lanes].filter((l) => !l.dead).length;
      for (let i = live; i < this.options.workers + this.options.spareWorkers; i++) this.openLane();
    }
    // Whatever becomes of this call (it may be refused or cancelled before it runs), the
    // sandbox looks again later whether it has gone idle.
    this.maybeIdle();
  }

  /** Arms the idle check (rest() re-arms itself while the sandbox is not idle). */
  private maybeIdle(): void {
    if (this.closed || this.resting || this.idleTimer) return;
    this.idleTimer = setTimeout(() => this.rest(), this.options.idleMs);
    // The timer alone does not keep the process alive; the lanes do, until it fires.
    this.idleTimer.unref();
  }

  /**
   * Each lane's task holds its Piscina worker and, with it, the process. An idle sandbox
   * ends those tasks: the threads stay started and warm in Piscina's pool, unreferenced,
   * so a process with nothing else to do can exit; the next call opens lanes on them again.
   */
  private rest(): void {
    this.idleTimer = undefined;
    if (this.closed) return;
    const quietFor = performance.now() - this.lastCall;
    if (this.inFlight > 0 || this.waiting.length > 0 || quietFor < this.options.idleMs) {
      this.idleTimer = setTimeout(() => this.rest(), Math.max(1, this.options.idleMs - Math.max(0, quietFor)));
      this.idleTimer.unref();
      return;
    }
    this.resting = true;
    // Replacements not yet started are not needed now; busy() opens what is missing.
    for (const timer of this.replacements) clearTimeout(timer);
    this.replacements.clear();
    for (const lane of this.lanes) lane.shutdown();
    // Whoever awaits ready() looks again (and takes the workers back).
    for (const wake of this.readyWaiters.splice(0)) wake();
  }

  /** Answers every waiting task, and whoever awaits ready(), with the reason workers do not start. */
  private failWaiting(error: Error): void {
    const data: ErrorData = { code: "WORKER_CRASHED", message: `worker threads fail to start: ${error.message}` };
    for (const w of this.waiting.splice(0)) {
      w.detach?.();
      w.resolve({ ok: false, index: 0, error: data });
    }
    for (const wake of this.readyWaiters.splice(0)) wake();
  }

  /**
   * Tasks the workers can still take (queued tasks soon go there): the free slots of the
   * working lanes, then those of lanes that are idle or still starting, up to `workers`
   * lanes in all.
   */
  private openSlots(): number {
    let open = 0;
    let lanes = 0;
    const live = [...this.lanes].filter((l) => !l.dead);
    for (const l of live) if (l.inFlight > 0) { open += Math.max(0, TASKS_PER_LANE - l.inFlight); lanes++; }
    for (const l of live) if (l.inFlight === 0 && lanes < this.options.workers) { open += TASKS_PER_LANE; lanes++; }
    return open;
  }

  /**
   * A lane to run a task on now. At most `workers` lanes work at once (the spares stand
   * by), each with up to TASKS_PER_LANE tasks so a worker never waits for this thread to
   * hand it the next one. An idle lane is preferred while fewer than `workers` work, the
   * most recently used first (it is still polling, its caches warm).
   */
  private freeLane(idleOnly = false): Lane | undefined {
    let working = 0;
    let idle: Lane | undefined;
    let queued: Lane | undefined;
    for (const lane of this.lanes) {
      if (!lane.ready || lane.dead) continue;
      if (lane.inFlight === 0) {
        if (!idle || lane.lastUsed > idle.lastUsed) idle = lane;
        continue;
      }
      working++;
      if (lane.inFlight < TASKS_PER_LANE && (!queued || lane.inFlight < queued.inFlight)) queued = lane;
    }
    return idle && working < this.options.workers ? idle : idleOnly ? undefined : queued;
  }

  private async runWatched<T>(lane: Lane, task: Task, limits: number[], signal?: AbortSignal): Promise<Watched<T>> {
    if (signal?.aborted) return { ok: false, index: 0, error: { code: "CALL_CANCELLED", message: "the call was cancelled before it started" } };
    const refused = this.refusal(task.kind === "stage" ? task.calls.filter((_, i) => !task.stage.failed?.[i]) : task.calls);
    if (refused) return refused;
    const progress = new SharedArrayBuffer(PROGRESS_BYTES);
    const index = new Int32Array(progress, 0, 2);
    Atomics.store(index, 0, PROGRESS_WAITING);
    let stop: { index: number; error: ErrorData } | undefined;
    let cancelledEarly: (() => void) | undefined;
    const onCancel = (): void => {
      // Finished: its reply is on the way, and the worker may already run the next task.
      if (Atomics.load(index, 0) >= limits.length) return;
      stop ??= { index: Math.max(0, Atomics.load(index, 0)), error: { code: "CALL_CANCELLED", message: "the call was cancelled by the caller", details: { reason: String(signal?.reason ?? "aborted") } } };
      // Still queued behind another task on the lane: the worker will skip it, nothing is killed.
      if (Atomics.compareExchange(index, 0, PROGRESS_WAITING, PROGRESS_CANCELLED) === PROGRESS_WAITING) cancelledEarly?.();
      else lane.kill();
    };
    const early = new Promise<void>((resolve) => { cancelledEarly = resolve; });
    this.inFlight++;
    signal?.addEventListener("abort", onCancel, { once: true });
    const unwatch = watchClock(progress, limits, (i) => {
      stop = { index: i, error: { code: "GUEST_TIMEOUT", message: `guest call ${i} ran past its ${limits[i]} ms limit; its worker was terminated`, details: { call: i, limitMs: limits[i] } } };
      lane.kill();
    });
    try {
      // A worker is sent each module once; one that has since dropped it asks again.
      let value = await Promise.race([lane.post({ ...task, progress, calls: this.withModules(lane, task.calls, false) }, this.spinFor(lane)), early]);
      if (isMissingModules(value) && !stop) {
        Atomics.store(index, 0, PROGRESS_WAITING);
        value = await Promise.race([lane.post({ ...task, progress, calls: this.withModules(lane, task.calls, true) }, this.spinFor(lane)), early]);
      }
      // Capped, so one slow task (a GC pause) does not stop the polling for the next several.
      this.busyMicros += (Math.min(lane.lastBusyMicros, 2 * this.options.spin.caller) - this.busyMicros) / 8;
      if (stop) return { ok: false, ...stop };
      return { ok: true, value: value as T };
    } catch (err) {
      if (stop) {
        // A task that was running cost its worker.
        // (A chunk batch counts its calls chunk after chunk over the same steps.)
        if (Atomics.load(index, 0) >= 0) this.restarts.spend(task.calls[stop.index % task.calls.length]?.moduleId ?? "");
        return { ok: false, ...stop };
      }
      if (this.closed) return { ok: false, index: 0, error: { code: "EXECUTOR_CLOSED", message: "the sandbox was closed" } };
      // Queued behind a task whose worker died: it never started, so it runs elsewhere.
      if (Atomics.compareExchange(index, 0, PROGRESS_WAITING, PROGRESS_CANCELLED) === PROGRESS_WAITING) return this.schedule<T>(task, limits, signal, true);
      const i = Math.max(0, Atomics.load(index, 0));
      const message = (err as Error)?.message ?? String(err);
      return { ok: false, index: i, error: { code: "WORKER_CRASHED", message: `the worker running the call died: ${message}`, details: { call: i } } };
    } finally {
      this.inFlight--;
      unwatch();
      signal?.removeEventListener("abort", onCancel);
      this.drain();
    }
  }

  /** WORKER_RESTART_LIMITED when one of these modules has used up the restart budget. */
  private refusal(calls: readonly Pick<CallSpec, "moduleId">[]): Watched<never> | undefined {
    const offender = this.restarts.refused(calls.map((c) => c.moduleId));
    if (offender === undefined) return undefined;
    return { ok: false, index: 0, error: { code: "WORKER_RESTART_LIMITED", message: "this plugin caused too many worker restarts recently; its calls are refused until the restart budget refills", details: { moduleId: offender } } };
  }

  /** The calls of a task, carrying the compiled modules this lane's worker lacks (all of them when `all`). */
  private withModules<C extends Omit<CallSpec, "request">>(lane: Lane, calls: C[], all: boolean): C[] {
    if (!all && calls.every((c) => lane.modules.has(c.moduleId))) return calls;
    return calls.map((c) => {
      if (!all && lane.modules.has(c.moduleId)) return c;
      lane.modules.add(c.moduleId);
      return { ...c, module: this.compiled.get(c.moduleId) };
    });
  }

  /** The caller polls only when nothing else needs it and the worker's tasks have been short. */
  private spinFor(lane: Lane): number {
    const budget = this.options.spin.caller;
    return budget > 0 && this.inFlight === 1 && lane.inFlight === 0 && this.waiting.length === 0 && this.busyMicros * 1.25 + 20 <= budget ? budget : 0;
  }

  /**
   * Stops the workers; calls in flight end with EXECUTOR_CLOSED. (Without it, the workers
   * keep the process alive until the sandbox has been idle for idleMs.)
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const w of this.waiting.splice(0)) {
      w.detach?.();
      w.resolve({ ok: false, index: 0, error: { code: "EXECUTOR_CLOSED", message: "the sandbox was closed" } });
    }
    for (const timer of this.replacements) clearTimeout(timer);
    clearTimeout(this.idleTimer);
    for (const wake of this.readyWaiters.splice(0)) wake();
    for (const lane of this.lanes) lane.shutdown();
    await this.pool.destroy();
  }
}

/** Workers in a row that die before serving, after which waiting calls are failed. */
const BOOT_FAILURES_REPORTED = 5;

/** How long a spare covers for a terminated worker before its replacement starts booting. */
const REPLACE_AFTER_MS = 250;

/** Tasks a working lane holds at once: the one its worker runs, and the next. */
const TASKS_PER_LANE = 2;

/** Stages of other operations that waited go to a worker together, at most this many. */
const STAGES_PER_TASK = 16;

/** Tasks carry their lane's progress words; this placeholder is replaced when a lane takes the task. */
const NO_PROGRESS = new SharedArrayBuffer(PROGRESS_BYTES);

type StageStep = { module: LoadedModule; timeoutMs: number; kvScope?: CallOptions["kvScope"] };
type Watched<T> = { ok: true; value: T } | { ok: false; index: number; error: ErrorData };
type StageOutcome = Watched<StageResult>;
interface Queued {
  signal: AbortSignal | undefined;
  resolve: (outcome: Watched<unknown>) => void;
  detach?: () => void;
}
type WaitingStage = Queued & { stage: StageInput; steps: readonly StageStep[] };
type Waiting = WaitingStage | (Queued & { task: Task; limits: number[] });

function moduleIdOf(module: LoadedModule): string {
  return `${module.sha256}/${module.memory.maxPages}`;
}

function callSpec(module: LoadedModule, kvScope: CallOptions["kvScope"]): Omit<CallSpec, "request"> {
  return {
    moduleId: moduleIdOf(module),
    memoryBytes: module.limits.memoryBytes,
    memoryPages: { initial: module.memory.initialPages, maximum: module.memory.maxPages },
    inputBytes: module.limits.inputBytes,
    outputBytes: module.limits.outputBytes,
    abiMajor: module.abi.major,
    kvScope: module.capabilities.includes("kv") && kvScope ? `${kvScope.spaceId}\u0000${kvScope.ownerId}` : null,
    ...(module.component ? { component: module.component } : {}),
  };
}

function toResult(report: CallReport): InvokeResult {
  const { droppedLogs: _dropped, ...rest } = report;
  return rest;
}

function notRun(cause: ErrorData): ErrorData {
  return { code: cause.code, message: `not completed: a later call in the same task failed (${cause.code})`, details: { causedBy: cause.code } };
}

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  return new Sandbox(options);
}

/** What ended a worker, short: the code of a terminated thread or the error's name and message. */
function reasonOf(error: unknown): string {
  if (error === undefined || error === null) return "terminated";
  if (typeof error === "number") return `exit code ${error}`;
  const e = error as { name?: string; message?: string };
  return `${e.name ?? "Error"}: ${String(e.message ?? error).slice(0, 200)}`;
}
