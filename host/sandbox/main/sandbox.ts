import { clockLimit } from "./clock-limit.js";
import { sandboxClosed } from "../../errors/call-errors.js";
import { notCompleted, workersFailToStart } from "../../errors/worker-errors.js";
import { encode } from "../../../abi/codec.js";
import type { Outcome, RequestEnvelope } from "../../../abi/envelope.js";
import { SluiceError, type ErrorData } from "../../errors/sluice-error.js";
import type { StageInput, StageResult } from "../../pipeline/run-steps.js";
import { IdleRest } from "./idle-rest.js";
import { BOOT_FAILURES_REPORTED, LanePool } from "./lane-pool.js";
import type { LoadedModule, LoadOptions } from "./load-module.js";
import { LoadedModules, moduleIdOf, type KvScope } from "./loaded-modules.js";
import type { CallReport, CallsTask, LogLine, StageTask, WireStageResult } from "../protocol.js";
import { fromWire } from "../protocol.js";
import { RestartBudget } from "./restart-budget.js";
import { resolveOptions, type ResolvedOptions, type SandboxOptions } from "./sandbox-options.js";
import { NO_PROGRESS, Scheduler, type StageOutcome, type StageStep, type StepSeen } from "./scheduler.js";
import { withKeys } from "../../objects/with-keys.js";

export type { SandboxOptions } from "./sandbox-options.js";

export interface CallOptions {
  /** Overrides the plugin's time limit for this call (never above it). */
  timeoutMs?: number;
  /**
   * Cancels the call: answered CALL_CANCELLED at once. A call still waiting is never run; one
   * already running is left to finish within its own limits (its time limit still stops it),
   * so a caller going away never costs a worker restart.
   */
  signal?: AbortSignal;
  /** Key-value scope: the space, and the owner within it (the host passes the plugin id, so a plugin's paired before and after hooks share their data). */
  kvScope?: KvScope;
  /** Also return the reply's decoded value and bytes. */
  raw?: boolean;
}

/** One call planned into a task. */
export interface PlannedCall {
  module: LoadedModule;
  request: Uint8Array;
  options?: Omit<CallOptions, "signal">;
}

/** `fuel`: what the call used of its budget (limits.fuel); 0 for a call that never ran. */
export type InvokeResult =
  | { ok: true; outcome: Outcome; logs: LogLine[]; durationMs: number; memoryBytes: number; fuel: number; reply?: unknown; replyBytes?: Uint8Array }
  | { ok: false; error: ErrorData; logs: LogLine[]; durationMs: number; memoryBytes: number; fuel: number };

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
  private readonly modules = new LoadedModules();
  private readonly lanes: LanePool;
  private readonly scheduler: Scheduler;
  private readonly idle: IdleRest;
  private closed = false;

  constructor(options: SandboxOptions = {}) {
    this.options = resolveOptions(options);
    this.restarts = new RestartBudget(this.options.restarts);
    this.lanes = new LanePool(this.options, {
      ready: () => this.scheduler.laneReady(),
      failing: (error) => this.scheduler.failWaiting(error),
    });
    this.scheduler = new Scheduler(this.options, this.lanes, this.modules, this.restarts, () => this.idle.touch());
    this.idle = new IdleRest(this.options.idleMs, {
      busy: () => this.scheduler.busy,
      rest: () => this.lanes.rest(),
      wake: () => this.lanes.wake(),
    });
  }

  /** Resolves when every worker is serving (calls made before then wait for the first one). */
  async ready(): Promise<void> {
    while (!this.closed && this.lanes.readyCount < this.lanes.full) {
      if (this.lanes.failedBoots >= BOOT_FAILURES_REPORTED) throw SluiceError.fromData(workersFailToStart());
      this.idle.touch();
      await this.lanes.changed();
    }
    this.idle.arm();
  }

  /** Workers alive now (the pool replaces terminated ones). */
  get threadCount(): number {
    return this.lanes.threadCount;
  }

  /** Tasks waiting for a worker. */
  get queueSize(): number {
    return this.scheduler.queueSize;
  }

  /** True when calls to this module are refused for now because it caused too many worker restarts. */
  restartLimited(module: LoadedModule): boolean {
    return this.restarts.refused([moduleIdOf(module)]) !== undefined;
  }

  /** Validates, caps, meters and compiles a guest once; later loads of the same bytes and limits share it. */
  load(bytes: Uint8Array | ArrayBuffer, options: LoadOptions = {}): Promise<LoadedModule> {
    return this.modules.load(bytes, options);
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
    if (this.closed) throw sandboxClosed();
    const calls = planned.map(({ module, options }) => this.modules.spec(module, options?.kvScope));
    const requests = planned.map(({ request, options }) => ({ bytes: request, raw: options?.raw === true }));
    const limits = planned.map(({ module, options }) => clockLimit(module, options?.timeoutMs ?? module.limits.timeoutMs));
    const task: CallsTask = { kind: "calls", calls, requests, progress: NO_PROGRESS, kvPath: this.options.kvPath };
    const outcome = await this.scheduler.schedule<CallReport[]>(task, limits, signal);
    if (outcome.ok) return outcome.value.map(toResult);
    return planned.map((_, i) => ({ ok: false, error: i < outcome.index ? notCompleted(outcome.error) : outcome.error, logs: [], durationMs: 0, memoryBytes: 0, fuel: 0 }));
  }

  /**
   * Runs a whole stage of guest hooks in one task. When a step times out or its worker
   * dies, the task is lost: the result says which step, and the caller decides (see
   * engine/stage.ts, which re-runs the stage with that step marked failed). Stages of
   * other operations that wait for a worker together go to it as one task. `seen` is told
   * which step runs whenever a look finds the task still running (every STEP_LOOK_MS).
   * `waits`: the stage follows its operation's real call (an after stage), so it waits its
   * turn however long the queue: refusing it could not undo the call, only waste it. Only
   * work that starts something (a before stage, a plain call) is refused with QUEUE_FULL.
   */
  runStage(stage: StageInput, steps: readonly StageStep[], signal?: AbortSignal, seen?: StepSeen, waits = false): Promise<StageOutcome> {
    return this.scheduler.stageTask(stage, steps, signal, seen, waits);
  }

  /**
   * Runs the chunk stage for several chunks in one task (a stream that got ahead of its
   * hooks): each chunk starts from the holds the previous one left, and the batch stops at
   * a block or a fail-closed failure. One result per chunk that ran. A stream is under
   * way, so the task is never refused for the queue's length (a refusal would cut it).
   */
  async runChunks(stage: StageInput, more: Record<string, unknown>[], steps: readonly StageStep[], signal?: AbortSignal): Promise<{ ok: true; value: StageResult[] } | { ok: false; index: number; error: ErrorData }> {
    if (this.closed) throw sandboxClosed();
    const task: StageTask = { kind: "stage", stage, more, calls: steps.map((s) => this.modules.spec(s.module, s.kvScope)), progress: NO_PROGRESS, kvPath: this.options.kvPath };
    const limits = steps.map((s) => clockLimit(s.module, s.timeoutMs));
    const r = await this.scheduler.schedule<WireStageResult[]>(task, Array.from({ length: more.length + 1 }, () => limits).flat(), signal, true);
    const given = [stage.payload, ...more];
    return r.ok ? { ok: true, value: r.value.map((v, k) => fromWire(v, given[k]!)) } : withKeys(r, { index: r.index % steps.length });
  }

  /**
   * How many operations the host has in flight (the engine says, as each one opens and ends).
   * With more than one, a caller never polls for a guest's reply (the `spin.caller` option):
   * polling holds the event loop, and under load the other operations' requests and answers
   * wait behind it (measured in test/bench/RESULTS.md).
   */
  get operationsInFlight(): number {
    return this.scheduler.operations;
  }

  set operationsInFlight(n: number) {
    this.scheduler.operations = n;
  }

  /**
   * Says a task is coming soon (the engine, when an operation that will run guest hooks
   * starts, and when its real call returns): the worker it will go to is woken now, if it
   * sleeps, and polls for it: a task that finds its worker asleep waits for the wake and
   * runs slower on the just-woken thread (test/bench/RESULTS.md). A worker woken for
   * nothing polls for the worker spin time, then sleeps again.
   */
  expectTask(): void {
    if (!this.closed && this.scheduler.queueSize === 0) this.lanes.warmNext();
  }

  /**
   * Stops the workers; calls in flight end with EXECUTOR_CLOSED. (Without it, the workers
   * keep the process alive until the sandbox has been idle for idleMs.)
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.scheduler.close();
    this.idle.close();
    await this.lanes.close();
  }
}

function toResult(report: CallReport): InvokeResult {
  const { droppedLogs: _dropped, ...rest } = report;
  return rest;
}

/**
 * A sandbox: the worker pool that runs guest modules under their limits.
 * @example const sandbox = createSandbox({ workers: 2 });
 */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  return new Sandbox(options);
}
