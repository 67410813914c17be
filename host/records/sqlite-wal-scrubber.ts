/**
 * The WAL truncation of the records' SQLite file (sqlite-store.ts), run on a thread of its
 * own over a connection of its own. The checkpoint that truncates the WAL copies its pages
 * into the database and syncs the file: 10–36 ms on the shared 2-core machine, about once a
 * second under traffic, and the event loop stood still for all of it. On this thread the
 * same checkpoint runs at the same moments; the store's writes that meet it find the file
 * busy and wait for it without blocking (whenFree), and everything else keeps moving.
 * A truncation asked for while one runs is run again after it (the rows deleted meanwhile
 * need one of their own). A busy checkpoint is retried at the next request, as on the main thread.
 */
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

export interface WalScrubber {
  /** Truncates the WAL soon (now, or again after the truncation under way). */
  request(): void;
  /** Whether a thread is up (close() has one to stop). */
  started(): boolean;
  /** Stops the thread; the caller truncates once more on its own connection. */
  close(): Promise<void>;
}

// Plain CommonJS for an eval'd worker: no file of its own to find from source or dist.
const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.sqlite);
const db = new Database(workerData.file, { fileMustExist: true });
// Waits for the store's short transactions to end: on this thread, waiting blocks no request.
db.pragma("busy_timeout = 1000");
parentPort.on("message", () => {
  try { db.pragma("wal_checkpoint(TRUNCATE)"); } catch { /* busy or closing: the next request tries again */ }
  parentPort.postMessage(0);
});
`;

export function walScrubber(file: string): WalScrubber {
  let worker: Worker | undefined;
  let running = false;
  let again = false;
  const start = (): Worker => {
    const w = new Worker(WORKER, { eval: true, workerData: { file, sqlite: createRequire(import.meta.url).resolve("better-sqlite3") } });
    w.unref();
    w.on("message", () => {
      running = false;
      if (again) { again = false; running = true; w.postMessage(0); }
    });
    // A thread that cannot open the file (or died) is replaced at the next request.
    w.on("error", () => { if (worker === w) { worker = undefined; running = false; } });
    w.on("exit", () => { if (worker === w) { worker = undefined; running = false; } });
    return w;
  };
  return {
    request() {
      if (running) { again = true; return; }
      worker ??= start();
      running = true;
      worker.postMessage(0);
    },
    started: () => worker !== undefined,
    async close() {
      const w = worker;
      worker = undefined;
      if (w) await w.terminate();
    },
  };
}
