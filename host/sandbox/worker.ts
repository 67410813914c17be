/** Piscina worker entry: runs the calls of one task in order, reporting progress through shared memory. */
import { KvStore } from "./kv-store.js";
import { PROGRESS_INDEX, PROGRESS_START, type CallReport, type CallsTask } from "./protocol.js";
import { runCall } from "./run-call.js";

const stores = new Map<string, KvStore>();
function kvAt(path: string | null): () => KvStore {
  return () => {
    if (path === null) throw new Error("kv capability used without a store");
    let store = stores.get(path);
    if (!store) stores.set(path, (store = new KvStore(path)));
    return store;
  };
}

export default function run(task: CallsTask): CallReport[] {
  const index = new Int32Array(task.progress, 0, 2);
  const start = new Float64Array(task.progress, 8, 1);
  const kv = kvAt(task.kvPath);
  const reports: CallReport[] = [];
  for (let i = 0; i < task.calls.length; i++) {
    // The start time is written before the index, so the watchdog never reads a stale start.
    start[PROGRESS_START - 1] = performance.timeOrigin + performance.now();
    Atomics.store(index, PROGRESS_INDEX, i);
    reports.push(runCall(task.calls[i]!, kv));
  }
  Atomics.store(index, PROGRESS_INDEX, task.calls.length);
  return reports;
}
