/**
 * The WAL upkeep of the records' SQLite file (sqlite-store.ts), on a thread of its own over
 * a connection of its own. A checkpoint copies the WAL's pages into the database and syncs
 * both files: 4 ms on the shared 2-core machine for SQLite's automatic one (every 1,000
 * pages, run by whichever write crosses the mark), 10–36 ms for the truncation after a
 * result is deleted, and the event loop stood still for all of it (the p99 of every
 * request). While this thread keeps up, the store's connection runs no checkpoint
 * (`wal_autocheckpoint = 0`): the thread runs a PASSIVE one every
 * {@link CHECKPOINT_EVERY_WRITES} writes, which never blocks a writer, and a TRUNCATE after
 * deletes or once the WAL is longer than {@link WAL_LIMIT_BYTES}, which the store's writes
 * that meet it wait out without blocking (whenFree). When the thread is not up yet, is gone,
 * or falls behind (its checkpoint still running many writes later, or the WAL still past
 * twice the limit after it), the store's connection checkpoints again until it catches up:
 * the WAL never grows without bound.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/** Writes between two PASSIVE checkpoints: a records write is 3–10 pages, so about as often as SQLite's own mark of 1,000 pages (each checkpoint syncs both files: more often costs CPU). */
export const CHECKPOINT_EVERY_WRITES = 256;
/** The WAL's length past which the thread truncates it (SQLite's own mark is 1,000 pages, 4 MiB). */
export const WAL_LIMIT_BYTES = 16 * 2 ** 20;

export interface WalThread {
  /** Counts one committed write; every {@link CHECKPOINT_EVERY_WRITES}th asks for a checkpoint. */
  wrote(): void;
  /** Truncates the WAL soon (now, or again after the work under way), so deleted rows leave no frame. */
  truncate(): void;
  /** Whether a thread is up (close() has one to stop). */
  started(): boolean;
  /** Stops the thread; the caller truncates once more on its own connection. */
  close(): Promise<void>;
}

type WalWork = "checkpoint" | "truncate";

// Plain CommonJS for an eval'd worker: no file of its own to find from source or dist.
// Each piece of work is answered with the WAL's length after it.
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const { statSync } = require("node:fs");
const Database = require(workerData.sqlite);
const db = new Database(workerData.file, { fileMustExist: true });
// Waits a little for the store's short transactions to end, never long: a truncation
// waiting for the write lock holds the checkpoint lock, so the store's own fallback
// checkpoint could not run meanwhile. A busy one is tried again at the next request.
db.pragma("busy_timeout = 20");
db.pragma("wal_autocheckpoint = 0");
const walBytes = () => { try { return statSync(workerData.file + "-wal").size; } catch { return 0; } };
parentPort.postMessage(-1);
parentPort.on("message", (work) => {
  try {
    // A PASSIVE checkpoint never catches up with a steady writer, so the WAL never restarts:
    // past the limit it is truncated. The PASSIVE one first copies what it can without
    // blocking anyone, so the writers wait out only the rest of a truncation.
    db.pragma("wal_checkpoint(PASSIVE)");
    if (work === "truncate" || walBytes() > workerData.limit) db.pragma("wal_checkpoint(TRUNCATE)");
  } catch { /* busy or closing: the next request tries again */ }
  parentPort.postMessage(walBytes());
});
`;

/**
 * The thread for `file`, started at once. `keepingUp(true)`: the store's connection may
 * stop checkpointing; `keepingUp(false)`: it must checkpoint again (SQLite's default).
 */
export function walThread(file: string, keepingUp: (yes: boolean) => void): WalThread {
  let worker: Worker | undefined;
  let running = false;
  let next: WalWork | undefined;
  let writes = 0;
  let writesSinceAsked = 0;
  let keeping = false;
  const keep = (yes: boolean): void => { if (yes !== keeping) { keeping = yes; keepingUp(yes); } };
  const start = (): Worker => {
    const w = new Worker(WORKER, { eval: true, workerData: { file, limit: WAL_LIMIT_BYTES, sqlite: createRequire(import.meta.url).resolve("better-sqlite3") } });
    w.on("message", (walBytes: number) => {
      if (worker !== w) return;
      if (walBytes === -1) { keep(true); return; }
      running = false;
      keep(walBytes <= 2 * WAL_LIMIT_BYTES);
      if (next) { const work = next; next = undefined; post(work); }
    });
    // A thread that cannot open the file (or died) is replaced at the next request.
    const gone = (): void => { if (worker === w) { worker = undefined; running = false; keep(false); } };
    w.on("error", gone);
    w.on("exit", gone);
    // After the listeners: a "message" listener added later refs the thread again, and a
    // store its owner forgot to close would keep the process alive.
    w.unref();
    return w;
  };
  const post = (work: WalWork): void => {
    worker ??= start();
    running = true;
    writesSinceAsked = 0;
    worker.postMessage(work);
  };
  const request = (work: WalWork): void => {
    if (running) { if (next !== "truncate") next = work; return; }
    post(work);
  };
  // Up from the start: a thread starting at the first request would let the WAL grow meanwhile.
  worker = start();
  return {
    wrote() {
      if (running && ++writesSinceAsked > 4 * CHECKPOINT_EVERY_WRITES) keep(false);
      if (++writes % CHECKPOINT_EVERY_WRITES === 0) request("checkpoint");
    },
    truncate: () => request("truncate"),
    started: () => worker !== undefined,
    async close() {
      const w = worker;
      worker = undefined;
      if (w) await w.terminate();
    },
  };
}
