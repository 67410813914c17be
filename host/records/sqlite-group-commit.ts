/**
 * Group commit for the records' SQLite connection. The store's calls asked during one turn
 * of the event loop run in the order they were asked, in one transaction, each in a
 * savepoint of its own; a call that fails undoes only itself and rejects alone; no promise
 * resolves before that transaction has committed. The first call of a turn, when nothing is
 * before it, runs at once on its own: a lone request waits for no hop. So a write is on disk when its promise
 * resolves, exactly as with a transaction per call, while N concurrent operations pay for
 * one BEGIN/COMMIT and one WAL append of each page they share instead of N.
 * Batches run one after another: a batch waiting for the file's write lock (another
 * connection holds it) keeps every later call behind it.
 */
import type Database from "better-sqlite3";
import { whenFree } from "../storage/sqlite-busy.js";

interface Call {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

export interface GroupCommit {
  /** Runs `fn` (synchronous) in the next batch; resolves once its batch has committed. */
  run<T>(fn: () => T): Promise<T>;
  /** Resolves when every call asked so far has been run. */
  drained(): Promise<void>;
  /** No call waiting or running. */
  idle(): boolean;
}

export function groupCommit(db: Database.Database): GroupCommit {
  let pending: Call[] = [];
  let scheduled = false;
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  let ranThisTurn = false;

  const runBatch = (batch: Call[]): Promise<void> => {
    if (batch.length === 1) {
      // Alone in its turn: its own transaction (or statement), as without grouping.
      const call = batch[0]!;
      return whenFree(call.fn).then(call.resolve, call.reject);
    }
    let outcomes: Outcome[] = [];
    const all = db.transaction(() => {
      outcomes = batch.map((call): Outcome => {
        try {
          return { ok: true, value: db.transaction(call.fn)() };
        } catch (err) {
          // SQLite ended the whole transaction (a full disk, an I/O error): nothing of the batch stands.
          if (!db.inTransaction) throw err;
          return { ok: false, err };
        }
      });
    });
    return whenFree(() => all.immediate()).then(
      () => { batch.forEach((call, i) => { const o = outcomes[i]!; if (o.ok) call.resolve(o.value); else call.reject(o.err); }); },
      (err: unknown) => { for (const call of batch) call.reject(err); },
    );
  };

  const start = (batch: Call[]) => {
    busy = true;
    running = runBatch(batch).finally(() => {
      busy = false;
      // Calls asked while this batch ran (or waited for the lock) go next, together.
      if (pending.length > 0) flush();
    });
  };

  const flush = () => {
    scheduled = false;
    if (busy || pending.length === 0) return;
    const batch = pending;
    pending = [];
    start(batch);
  };

  return {
    run<T>(fn: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const call: Call = { fn, resolve: resolve as (value: unknown) => void, reject };
        if (!busy && pending.length === 0 && !ranThisTurn) {
          // The first call of a turn with nothing before it runs at once, as without grouping
          // (one request at a time waits for no hop); the calls after it in this turn are grouped.
          ranThisTurn = true;
          setImmediate(() => { ranThisTurn = false; });
          start([call]);
          return;
        }
        pending.push(call);
        if (!scheduled && !busy) { scheduled = true; setImmediate(flush); }
      });
    },
    idle: () => !busy && pending.length === 0,
    async drained(): Promise<void> {
      while (busy || pending.length > 0) {
        if (!busy) flush();
        await running;
      }
    },
  };
}
