/**
 * The records' writer thread, seen from the store. Under concurrent traffic the store's
 * group commit (sqlite-group-commit.ts) hands it whole batches of writes: sealing, the
 * statements and the commit then run beside the event loop instead of on it (a quarter of
 * the main thread's time at 2,000 requests/s with three hooks). A lone write still runs on
 * the store's own connection at once: the hop would only add to its latency. The group
 * commit runs one batch at a time, here or there, never both: the two connections never
 * wait for each other and every write keeps its order.
 */
import { Worker } from "node:worker_threads";
import { SluiceError, type ErrorData } from "../errors/sluice-error.js";
import { threadFile } from "../storage/thread-file.js";
import { BUSY_WAIT_MS } from "../storage/sqlite-busy.js";
import type { Outcome } from "./sqlite-group-commit.js";
import type { RecordWrite } from "./sqlite-record-writes.js";

/** What the thread is started with: the file, its durability, the deployment's secret (sealing: memory only, never logged). */
export interface WriterData {
  file: string;
  synchronous: "NORMAL" | "FULL";
  secret: Uint8Array | string;
  busyMs: number;
}

export type ThreadError = { sluice: ErrorData } | { message: string; code: string | undefined };

export type WriterReply =
  | { id: number; outcomes: ({ ok: true; dropped: boolean } | { ok: false; err: ThreadError })[] }
  | { id: number; failed: ThreadError };

export interface RecordsWriter {
  /** Up (false while it starts, after it died, once closed). */
  ready(): boolean;
  /** Up or starting: a batch given now runs there once it is up. */
  alive(): boolean;
  /**
   * Runs `writes` in one transaction on the thread (up or starting): one outcome each
   * (`value`: a stored result was deleted), or a rejection when the batch failed as a whole;
   * undefined when they cannot cross to the thread (nothing was sent).
   */
  run(writes: readonly RecordWrite[]): Promise<Outcome[]> | undefined;
  close(): Promise<void>;
}

/** A failure as the store's own connection would have thrown it: a SluiceError, or an error with SQLite's code. */
function rebuilt(e: ThreadError): Error {
  if ("sluice" in e) return SluiceError.fromData(e.sluice);
  return Object.assign(new Error(e.message), { code: e.code });
}

/** After the thread died, how long batches run on the store's connection before a new thread is started; doubled for each start that never came up, to a minute. */
const RESTART_AFTER_MS = 1_000;
const RESTART_AFTER_MAX_MS = 60_000;

export function recordsWriter(data: Omit<WriterData, "busyMs">): RecordsWriter {
  let worker: Worker | undefined;
  let up = false;
  let closed = false;
  let restartAt = 0;
  let failedStarts = 0;
  const later = (): void => { restartAt = Date.now() + Math.min(RESTART_AFTER_MAX_MS, RESTART_AFTER_MS * 2 ** failedStarts); };
  let nextId = 0;
  const waiting = new Map<number, { resolve: (o: Outcome[]) => void; reject: (err: unknown) => void }>();
  const start = (): void => {
    let w: Worker;
    try {
      w = new Worker(threadFile(import.meta.url, "./sqlite-writer-thread.js"), {
        workerData: { ...data, busyMs: BUSY_WAIT_MS } satisfies WriterData,
        // The process's own flags are not the thread's (`--input-type` refuses a file entry).
        execArgv: [],
      });
    } catch {
      // No thread (out of resources): the store's connection takes every batch, and a new thread is tried later.
      later();
      failedStarts++;
      return;
    }
    worker = w;
    w.on("message", (m: "ready" | WriterReply) => {
      if (m === "ready") { up = true; failedStarts = 0; return; }
      const call = waiting.get(m.id);
      waiting.delete(m.id);
      if (waiting.size === 0) w.unref();
      if (!call) return;
      if ("failed" in m) call.reject(rebuilt(m.failed));
      else call.resolve(m.outcomes.map((o) => (o.ok ? { ok: true, value: o.dropped } : { ok: false, err: rebuilt(o.err) })));
    });
    // A thread that died took its transaction with it (nothing of the batch committed, or
    // all of it did and the answer is lost): its writes fail, never run twice. The store's
    // connection takes the batches until a new thread is up.
    const gone = (err?: unknown): void => {
      if (worker !== w) return;
      worker = undefined;
      later();
      if (!up) failedStarts++;
      up = false;
      const why = err instanceof Error ? err.message : "the thread exited";
      for (const call of waiting.values()) call.reject(new SluiceError("STORE_UNAVAILABLE", `records store: the writer thread stopped: ${why}`, {}));
      waiting.clear();
    };
    w.on("error", gone);
    w.on("exit", () => gone());
    // Referenced only while a batch is out: an idle store its owner forgot to close does not keep the process alive.
    w.unref();
  };
  start();
  const restart = (): void => { if (!worker && !closed && Date.now() >= restartAt) start(); };
  return {
    ready() { restart(); return up; },
    alive() { restart(); return worker !== undefined; },
    run(writes) {
      const w = worker;
      if (!w) return Promise.reject(new SluiceError("STORE_UNAVAILABLE", "records store: the writer thread is not running", {}));
      const id = nextId++;
      // Before it is up, the message waits in the thread's port until the thread listens.
      // A value a structured clone refuses (a function a caller put in its context): not
      // sent, the store's connection runs the batch, as JSON sees it.
      try { w.postMessage({ id, writes }); } catch { return undefined; }
      if (waiting.size === 0) w.ref();
      return new Promise((resolve, reject) => { waiting.set(id, { resolve, reject }); });
    },
    async close() {
      closed = true;
      up = false;
      const w = worker;
      worker = undefined;
      if (w) await w.terminate();
    },
  };
}
