/** Piscina worker entry: runs the calls of one task in order, reporting progress through shared memory. */
import { encodeTransient } from "../../../abi/codec.js";
import { runSteps, type InvokeReport } from "../../pipeline/run-steps.js";
import { guestLogs } from "../../pipeline/guest-logs.js";
import type { SyncKvStore } from "../kv/kv-store.js";
import { openWorkerKv } from "../kv/open-kv.js";
import { PROGRESS_INDEX, PROGRESS_START, PROGRESS_TAKEN, PROGRESS_THREAD, PROGRESS_WAITING, type SkippedTask, type CallReport, type CallSpec, type CallsTask, type StagesTask, type ServeTask, type StageTask, type Task, type WireStageResult, toWire } from "../protocol.js";
import { readyCall, runCall, type CallShape } from "./run-call.js";
import { admit, type MissingModules } from "./module-cache.js";
import { warmUp } from "./warm-up.js";
import { serve } from "./serve.js";
import { pendingComponents } from "./run-component.js";
import { withKeys } from "../../objects/with-keys.js";
import { ownThreadId } from "../thread-cpu.js";

/** Told to the watchdog with every task, so time this thread waits for a core is not billed to its guests. */
const THREAD_ID = ownThreadId();


const stores = new Map<string, SyncKvStore>();
function kvAt(path: string | null, calls: readonly { kvScope: string | null }[]): () => SyncKvStore {
  const get = () => {
    if (path === null) throw new Error("kv capability used without a store");
    let store = stores.get(path);
    if (!store) stores.set(path, (store = openWorkerKv(path)));
    return store;
  };
  // Opening the store (once per worker; a SQLite file, or a PostgreSQL connection thread's
  // boot and connect, tens of ms) is the host's time: done before any guest's clock
  // starts. If it fails, the guest's first kv call fails as it would have.
  if (path !== null && !stores.has(path) && calls.some((c) => c.kvScope !== null)) { try { get(); } catch { /* reported at the call */ } }
  return get;
}

let pause: () => void = () => {};
/** Stops the running call's clock: the guest returned, and what follows (decoding and checking its reply, applying it) is the host's work. */
const guestReturned = (): void => pause();

function progress(task: Task): (i: number) => void {
  const index = new Int32Array(task.progress, 0, 2);
  const start = new Float64Array(task.progress, 8, 1);
  pause = () => { start[PROGRESS_START - 1] = Number.NaN; };
  return (i) => {
    // The start time is written before the index, so the watchdog never reads a stale start.
    start[PROGRESS_START - 1] = performance.timeOrigin + performance.now();
    Atomics.store(index, PROGRESS_INDEX, i);
  };
}

/**
 * Starts call `i`'s clock once the host's own preparation for it is done: the clock of the
 * call before is stopped first, since a call that failed never stopped it, and a new memory
 * for this one is created and made resident before its own clock starts (run-call.ts readyCall).
 */
function begin(mark: (i: number) => void, i: number, call: CallSpec, requestBytes: number): CallShape | undefined {
  pause();
  const shape = readyCall(call, requestBytes);
  mark(i);
  return shape;
}

function runCalls(task: CallsTask): CallReport[] {
  const mark = progress(task);
  const kv = kvAt(task.kvPath, task.calls);
  const reports = task.calls.map((call, i) => { const shape = begin(mark, i, call, task.requests[i]!.bytes.byteLength); return runCall(call, task.requests[i]!, kv, guestReturned, shape); });
  mark(task.calls.length);
  return reports;
}

async function runStage(task: StageTask): Promise<WireStageResult | WireStageResult[]> {
  const mark = progress(task);
  const kv = kvAt(task.kvPath, task.calls);
  const steps = task.calls.length;
  const results: WireStageResult[] = [];
  // A chunk batch: each chunk's stage starts from the holds the previous one left; the
  // progress index counts (chunk, step) pairs, so the watchdog times every step.
  const payloads = [task.stage.payload, ...(task.more ?? [])];
  let holds = task.stage.holds;
  for (const [k, payload] of payloads.entries()) {
    const result = await runSteps(withKeys(task.stage, holds ? { payload, holds } : { payload }), (i, request) => {
      // Copied into guest memory before anything else encodes on this thread.
      const bytes = encodeTransient(request);
      const shape = begin(mark, k * steps + i, task.calls[i]!, bytes.byteLength);
      const report = runCall(task.calls[i]!, { bytes, raw: false }, kv, guestReturned, shape);
      // The host's own checks of the reply (schema validation, first-use compiles) are not the guest's time.
      pause();
      return invokeReport(report);
    });
    results.push(toWire(result, payload));
    if (result.stop || result.failure) break;
    holds = result.holds;
  }
  mark(payloads.length * steps);
  return task.more ? results : results[0]!;
}

async function runStages(task: StagesTask): Promise<(WireStageResult | null)[]> {
  const mark = progress(task);
  const kv = kvAt(task.kvPath, task.calls);
  const claims = new Int32Array(task.claims);
  const results: (WireStageResult | null)[] = [];
  let offset = 0;
  for (const [s, stage] of task.stages.entries()) {
    const first = offset;
    if (Atomics.compareExchange(claims, s, 0, 1) !== 0) {
      results.push(null);
      offset += stage.steps.length;
      continue;
    }
    results.push(toWire(await runSteps(stage, (i, request) => {
      // Copied into guest memory before anything else encodes on this thread.
      const bytes = encodeTransient(request);
      const shape = begin(mark, first + i, task.calls[first + i]!, bytes.byteLength);
      const report = runCall(task.calls[first + i]!, { bytes, raw: false }, kv, guestReturned, shape);
      pause();
      return invokeReport(report);
    }), stage.payload));
    offset += stage.steps.length;
  }
  mark(task.calls.length);
  return results;
}

export default function run(task: Task | ServeTask): CallReport[] | Promise<CallReport[] | WireStageResult | (WireStageResult | null)[]> {
  if (task.kind === "serve") return serve(task, (t) => run(t as Task)) as Promise<never>;
  // Claimed atomically: the caller may cancel a task still queued behind another one.
  const index = new Int32Array(task.progress, 0, 2);
  if (Atomics.compareExchange(index, PROGRESS_INDEX, PROGRESS_WAITING, PROGRESS_TAKEN) !== PROGRESS_WAITING) return { skipped: true } satisfies SkippedTask as never;
  Atomics.store(index, PROGRESS_THREAD, THREAD_ID);
  return execute(task);
}

function execute(task: Task): CallReport[] | Promise<CallReport[] | WireStageResult | (WireStageResult | null)[]> {
  const missingModules = admit(task.calls);
  if (missingModules.length > 0) return { missingModules } satisfies MissingModules as never;
  // A component's glue is imported once per worker, before any call's clock starts.
  const pending = pendingComponents(task.calls);
  if (pending) return pending.then(() => execute(task));
  return task.kind === "calls" ? runCalls(task) : task.kind === "stage" ? runStage(task) : runStages(task);
}

/**
 * Settles once the warm-up has run; worker-entry.cts hands Piscina the handler only then, so
 * the worker takes no task before. Not a top-level await: a worker terminated while its
 * module is still being evaluated asynchronously aborts the whole process on Node 20 (V8's
 * "Check failed: (location_) != nullptr" in SourceTextModule::ExecuteAsyncModule, seen when
 * a host closed while a replacement worker warmed up); a plain promise is only dropped.
 */
export const ready: Promise<void> = warmUp(run);

/** What the pipeline core needs of a call's report; the log only when the guest wrote one. */
function invokeReport(report: CallReport): InvokeReport {
  const logs = guestLogs(report.logs, report.droppedLogs);
  const base = { durationMs: report.durationMs, fuel: report.fuel, ...(logs ? { logs } : {}) };
  return report.ok ? { ok: true, outcome: report.outcome, ...base } : { ok: false, error: report.error, ...base };
}
