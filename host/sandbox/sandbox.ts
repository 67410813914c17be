import { randomUUID } from "node:crypto";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { Piscina } from "piscina";
import { encode } from "../../abi/codec.js";
import type { Outcome, RequestEnvelope } from "../../abi/envelope.js";
import { SluiceError, type ErrorData } from "../errors/sluice-error.js";
import { loadModule, sha256Hex, type LoadedModule, type LoadOptions } from "./load-module.js";
import type { StageInput, StageResult } from "../pipeline/run-steps.js";
import { PROGRESS_BYTES, type CallReport, type CallSpec, type CallsTask, type LogLine, type StagesTask, type StageTask, type Task } from "./protocol.js";
import { workerFile } from "./worker-file.js";
import { RestartBudget, type RestartBudgetOptions } from "./restart-budget.js";
import { isMissingModules } from "./module-cache.js";

export interface SandboxOptions {
  /** Worker threads, all kept warm. Default: the machine's available parallelism. */
  workers?: number;
  /** Tasks that may wait for a worker before calls are refused with QUEUE_FULL. Default 1024. */
  maxQueue?: number;
  /** SQLite file behind the key-value capability. Default: a fresh file in the OS temp dir. */
  kvPath?: string;
  /** Worker restarts allowed (see RestartBudget). Default: a burst of 8 × workers, refilled at 2 × workers per second. */
  restarts?: Partial<RestartBudgetOptions>;
}

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

type ResolvedOptions = Required<Omit<SandboxOptions, "restarts">> & { restarts: RestartBudgetOptions };

function resolveOptions(o: SandboxOptions): ResolvedOptions {
  const workers = o.workers ?? Math.max(1, availableParallelism());
  if (!Number.isInteger(workers) || workers < 1) throw new SluiceError("CONFIG_INVALID", `workers must be a positive integer, got ${workers}`);
  const maxQueue = o.maxQueue ?? 1024;
  if (!Number.isInteger(maxQueue) || maxQueue < 0) throw new SluiceError("CONFIG_INVALID", `maxQueue must be a non-negative integer, got ${maxQueue}`);
  const restarts = { burst: 8 * workers, perSecond: 2 * workers, offenderMs: 10_000, ...o.restarts };
  if (!(restarts.burst >= 1) || !(restarts.perSecond > 0) || !(restarts.offenderMs >= 0)) throw new SluiceError("CONFIG_INVALID", "restarts.burst must be >= 1, restarts.perSecond > 0 and restarts.offenderMs >= 0");
  return { workers, maxQueue, restarts, kvPath: o.kvPath ?? join(tmpdir(), `sluice-kv-${process.pid}-${randomUUID()}.sqlite`) };
}

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
  /** Stages waiting for a free worker (see runStage). */
  private readonly waiting: WaitingStage[] = [];
  /** Compiled modules by id, to send to a worker that asks for them. */
  private readonly compiled = new Map<string, WebAssembly.Module>();
  private readonly pool: Piscina;
  private readonly cache = new Map<string, Promise<LoadedModule>>();
  private closed = false;
  /** Tasks submitted and not settled. Piscina's own maxQueue is not enforced in every path, so the bound is kept here. */
  private inFlight = 0;

  constructor(options: SandboxOptions = {}) {
    this.options = resolveOptions(options);
    this.restarts = new RestartBudget(this.options.restarts);
    this.pool = new Piscina({
      filename: workerFile("worker-entry", ".cjs"),
      minThreads: this.options.workers,
      maxThreads: this.options.workers,
      idleTimeout: Number.POSITIVE_INFINITY,
      // Bounds the worker's JS heap only; guest memory is bounded by the module's own maximum.
      resourceLimits: { maxOldGenerationSizeMb: 256, stackSizeMb: 4 },
    });
    // A worker that dies with no task is replaced by Piscina; the event must not crash the host.
    this.pool.on("error", () => {});
  }

  /** Workers alive now (the pool replaces terminated ones). */
  get threadCount(): number {
    return this.pool.threads.length;
  }

  get queueSize(): number {
    return this.pool.queueSize;
  }

  /** True when calls to this module are refused for now because it caused too many worker restarts. */
  restartLimited(module: LoadedModule): boolean {
    return this.restarts.refused([moduleIdOf(module)]) !== undefined;
  }

  /** Validates, caps and compiles a guest once; later loads of the same bytes and limits share it. */
  load(bytes: Uint8Array, options: LoadOptions = {}): Promise<LoadedModule> {
    const key = `${sha256Hex(bytes)}|${JSON.stringify(options.limits ?? {})}|${[...(options.capabilities ?? [])].sort().join(",")}`;
    let loaded = this.cache.get(key);
    if (!loaded) {
      loaded = loadModule(bytes, options);
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
    const task: CallsTask = { kind: "calls", calls, progress: new SharedArrayBuffer(PROGRESS_BYTES), kvPath: this.options.kvPath };
    const outcome = await this.runWatched<CallReport[]>(task, limits, signal);
    if (outcome.ok) return outcome.value.map(toResult);
    return planned.map((_, i) => ({ ok: false, error: i < outcome.index ? notRun(outcome.error) : outcome.error, logs: [], durationMs: 0, memoryBytes: 0 }));
  }

  /**
   * Runs a whole stage of guest hooks in one task. When a step times out or its worker
   * dies, the task is lost: the result says which step, and the caller decides (see
   * pipeline/stage.ts, which re-runs the stage with that step marked failed).
   */
  async runStage(stage: StageInput, steps: readonly StageStep[], signal?: AbortSignal): Promise<StageOutcome> {
    if (this.closed) throw new SluiceError("EXECUTOR_CLOSED", "the sandbox is closed");
    if (this.inFlight < this.options.workers) return this.runOneStage(stage, steps, signal);
    // Every worker is busy: wait, and leave with the stages that waited alongside (one task).
    if (signal?.aborted) return { ok: false, index: 0, error: { code: "CALL_CANCELLED", message: "the call was cancelled before it started" } };
    if (this.inFlight + this.waiting.length >= this.options.workers + this.options.maxQueue) {
      return { ok: false, index: 0, error: { code: "QUEUE_FULL", message: `the sandbox queue is full (${this.options.maxQueue} waiting tasks); retry later` } };
    }
    return new Promise<StageOutcome>((resolve) => {
      const entry: WaitingStage = { stage, steps, signal, resolve };
      const onAbort = (): void => {
        const at = this.waiting.indexOf(entry);
        if (at < 0) return;
        this.waiting.splice(at, 1);
        resolve({ ok: false, index: 0, error: { code: "CALL_CANCELLED", message: "the call was cancelled while it waited for a worker" } });
      };
      entry.detach = () => signal?.removeEventListener("abort", onAbort);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.push(entry);
    });
  }

  private runOneStage(stage: StageInput, steps: readonly StageStep[], signal?: AbortSignal): Promise<StageOutcome> {
    const task: StageTask = {
      kind: "stage",
      stage,
      calls: steps.map((s) => this.spec(s.module, s.kvScope)),
      progress: new SharedArrayBuffer(PROGRESS_BYTES),
      kvPath: this.options.kvPath,
    };
    return this.runWatched<StageResult>(task, steps.map((s) => Math.min(s.timeoutMs, s.module.limits.timeoutMs)), signal);
  }

  /** Starts waiting stages while workers are free: several at once become one task. */
  private drain(): void {
    while (this.waiting.length > 0 && this.inFlight < this.options.workers && !this.closed) {
      const batch = this.waiting.splice(0, STAGES_PER_TASK);
      for (const w of batch) w.detach?.();
      if (batch.length === 1) {
        const w = batch[0]!;
        void this.runOneStage(w.stage, w.steps, w.signal).then(w.resolve);
      } else {
        void this.runStages(batch);
      }
    }
  }

  /**
   * Several operations' stages in one task. If the task fails (a timeout, a cancellation, a
   * dead worker), the stage that caused it gets the error and every other stage runs again
   * on its own: a stage never fails for another operation's guest.
   */
  private async runStages(batch: WaitingStage[]): Promise<void> {
    const offsets: number[] = [];
    let n = 0;
    for (const w of batch) { offsets.push(n); n += w.steps.length; }
    const merged = new AbortController();
    let cancelled = -1;
    const listeners = batch.map((w, j) => {
      const onAbort = (): void => { if (cancelled < 0) cancelled = j; merged.abort(); };
      w.signal?.addEventListener("abort", onAbort, { once: true });
      return () => w.signal?.removeEventListener("abort", onAbort);
    });
    const task: StagesTask = {
      kind: "stages",
      stages: batch.map((w) => w.stage),
      calls: batch.flatMap((w) => w.steps.map((s) => this.spec(s.module, s.kvScope))),
      progress: new SharedArrayBuffer(PROGRESS_BYTES),
      kvPath: this.options.kvPath,
    };
    const limits = batch.flatMap((w) => w.steps.map((s) => Math.min(s.timeoutMs, s.module.limits.timeoutMs)));
    const r = await this.runWatched<StageResult[]>(task, limits, merged.signal);
    for (const off of listeners) off();
    if (r.ok) {
      batch.forEach((w, j) => w.resolve({ ok: true, value: r.value[j]! }));
      return;
    }
    const refusedBeforeRunning = r.error.code === "WORKER_RESTART_LIMITED" || r.error.code === "QUEUE_FULL";
    const culprit = refusedBeforeRunning ? -1 : r.error.code === "CALL_CANCELLED" ? cancelled : offsets.findLastIndex((o) => o <= r.index);
    batch.forEach((w, j) => {
      if (j === culprit) w.resolve({ ok: false, index: r.index - offsets[j]!, error: r.error });
      else void this.runOneStage(w.stage, w.steps, w.signal).then(w.resolve);
    });
  }

  /**
   * Runs the chunk stage for several chunks in one task (a stream that got ahead of its
   * hooks): each chunk starts from the holds the previous one left, and the batch stops at
   * a block or a fail-closed failure. One result per chunk that ran.
   */
  async runChunks(stage: StageInput, more: Record<string, unknown>[], steps: readonly { module: LoadedModule; timeoutMs: number; kvScope?: CallOptions["kvScope"] }[], signal?: AbortSignal): Promise<{ ok: true; value: StageResult[] } | { ok: false; index: number; error: ErrorData }> {
    if (this.closed) throw new SluiceError("EXECUTOR_CLOSED", "the sandbox is closed");
    const task: StageTask = { kind: "stage", stage, more, calls: steps.map((s) => this.spec(s.module, s.kvScope)), progress: new SharedArrayBuffer(PROGRESS_BYTES), kvPath: this.options.kvPath };
    const limits = steps.map((s) => Math.min(s.timeoutMs, s.module.limits.timeoutMs));
    const r = await this.runWatched<StageResult[]>(task, Array.from({ length: more.length + 1 }, () => limits).flat(), signal);
    return r.ok ? r : { ...r, index: r.index % steps.length };
  }

  private spec(module: LoadedModule, kvScope: CallOptions["kvScope"]): Omit<CallSpec, "request"> {
    const spec = callSpec(module, kvScope);
    if (!this.compiled.has(spec.moduleId)) this.compiled.set(spec.moduleId, module.module);
    return spec;
  }

  private async runWatched<T>(task: Task, limits: number[], signal?: AbortSignal): Promise<{ ok: true; value: T } | { ok: false; index: number; error: ErrorData }> {
    const index = new Int32Array(task.progress, 0, 2);
    const started = new Float64Array(task.progress, 8, 1);
    Atomics.store(index, 0, -1);
    const controller = new AbortController();
    let stop: { index: number; error: ErrorData } | undefined;
    let timer: NodeJS.Timeout | undefined;

    // Each call's clock starts when the worker starts it, so queueing does not count against it.
    const watch = (): void => {
      const i = Atomics.load(index, 0);
      if (i >= limits.length) return;
      if (i < 0) { timer = setTimeout(watch, Math.max(1, Math.min(...limits))); return; }
      // NaN: the worker is doing host work between guest calls; the clock is paused.
      if (Number.isNaN(started[0]!)) { timer = setTimeout(watch, Math.max(1, Math.min(...limits))); return; }
      const deadline = started[0]! + limits[i]!;
      const now = performance.timeOrigin + performance.now();
      if (now >= deadline) {
        stop = { index: i, error: { code: "GUEST_TIMEOUT", message: `guest call ${i} ran past its ${limits[i]} ms limit; its worker was terminated`, details: { call: i, limitMs: limits[i] } } };
        controller.abort();
        return;
      }
      timer = setTimeout(watch, Math.max(1, Math.ceil(deadline - now)));
    };
    const onCancel = (): void => {
      const i = Math.max(0, Atomics.load(index, 0));
      stop ??= { index: i, error: { code: "CALL_CANCELLED", message: "the call was cancelled by the caller", details: { reason: String(signal?.reason ?? "aborted") } } };
      controller.abort();
    };
    if (signal?.aborted) return { ok: false, index: 0, error: { code: "CALL_CANCELLED", message: "the call was cancelled before it started" } };
    const running = task.kind === "stage" ? task.calls.filter((_, i) => !task.stage.failed?.[i]) : task.calls;
    const offender = this.restarts.refused(running.map((c) => c.moduleId));
    if (offender !== undefined) {
      return { ok: false, index: 0, error: { code: "WORKER_RESTART_LIMITED", message: "this plugin caused too many worker restarts recently; its calls are refused until the restart budget refills", details: { moduleId: offender } } };
    }
    if (this.inFlight >= this.options.workers + this.options.maxQueue) {
      return { ok: false, index: 0, error: { code: "QUEUE_FULL", message: `the sandbox queue is full (${this.options.maxQueue} waiting tasks); retry later` } };
    }
    this.inFlight++;
    signal?.addEventListener("abort", onCancel, { once: true });
    timer = setTimeout(watch, Math.max(1, Math.min(...limits)));
    try {
      let value = await this.pool.run(task, { signal: controller.signal });
      if (isMissingModules(value)) {
        // This worker has not seen these modules yet: send them once, with the same clock.
        Atomics.store(index, 0, -1);
        value = await this.pool.run({ ...task, calls: task.calls.map((c) => ({ ...c, module: this.compiled.get(c.moduleId) })) }, { signal: controller.signal });
      }
      return { ok: true, value: value as T };
    } catch (err) {
      if (stop) {
        // A task that was running cost its worker.
        if (Atomics.load(index, 0) >= 0) this.restarts.spend(task.calls[Math.min(stop.index, task.calls.length - 1)]?.moduleId ?? "");
        return { ok: false, ...stop };
      }
      const message = (err as Error)?.message ?? String(err);
      if (this.closed) return { ok: false, index: 0, error: { code: "EXECUTOR_CLOSED", message: "the sandbox was closed" } };
      const i = Math.max(0, Atomics.load(index, 0));
      return { ok: false, index: i, error: { code: "WORKER_CRASHED", message: `the worker running the call died: ${message}`, details: { call: i } } };
    } finally {
      this.inFlight--;
      clearTimeout(timer);
      signal?.removeEventListener("abort", onCancel);
      this.drain();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const w of this.waiting.splice(0)) {
      w.detach?.();
      w.resolve({ ok: false, index: 0, error: { code: "EXECUTOR_CLOSED", message: "the sandbox was closed" } });
    }
    await this.pool.destroy();
  }
}

/** Stages of other operations that waited go to a worker together, at most this many. */
const STAGES_PER_TASK = 16;

type StageStep = { module: LoadedModule; timeoutMs: number; kvScope?: CallOptions["kvScope"] };
type StageOutcome = { ok: true; value: StageResult } | { ok: false; index: number; error: ErrorData };
interface WaitingStage {
  stage: StageInput;
  steps: readonly StageStep[];
  signal: AbortSignal | undefined;
  resolve: (outcome: StageOutcome) => void;
  detach?: () => void;
}

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
