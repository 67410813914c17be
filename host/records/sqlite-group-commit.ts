/**
 * Group commit for the records' SQLite connection. The store's calls asked during one turn
 * of the event loop run in the order they were asked, in one transaction, each in a
 * savepoint of its own; a call that fails undoes only itself and rejects alone; no promise
 * resolves before that transaction has committed. The first call of a turn, when nothing is
 * before it, runs at once on its own: a lone request waits for no hop. So a write is on disk when its promise
 * resolves, exactly as with a transaction per call, while N concurrent operations pay for
 * one BEGIN/COMMIT and one WAL append of each page they share instead of N.
 * Batches run one after another: a batch waiting for the file's write lock (another
 * connection holds it) keeps every later call behind it. A batch whose calls are all also
 * given as data runs on the `offload` when it takes it (the records' writer thread,
 * sqlite-writer.ts): same transaction, same order, off the event loop.
 */
import type Database from "better-sqlite3";
import { whenFree } from "../storage/sqlite-busy.js";

interface Call {
  fn: () => unknown;
  /** The same call as plain data, for the offload; absent when it must run here. */
  data: unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

/** Somewhere else a batch can run in one transaction: the value of each call's outcome is what its `fn` would have returned. */
export interface Offload {
  /** Whether it takes a batch of `size` calls now. */
  takes(size: number): boolean;
  /** The batch's outcomes; undefined when it cannot take this batch after all (nothing ran there: it runs here). */
  run(data: unknown[]): Promise<Outcome[]> | undefined;
}

/**
 * One transaction over `fns` (call it `.immediate(fns)`), each in a savepoint of its own: a
 * call that fails undoes only itself and is its outcome; a failure that ends the whole
 * transaction (a full disk, an I/O error) throws, and nothing of it stands. The group
 * commit's batches run so, here and on the writer thread.
 */
export function savepointEach(db: Database.Database): Database.Transaction<(fns: readonly (() => unknown)[]) => Outcome[]> {
  return db.transaction((fns: readonly (() => unknown)[]) => fns.map((fn): Outcome => {
    try {
      return { ok: true, value: db.transaction(fn)() };
    } catch (err) {
      if (!db.inTransaction) throw err;
      return { ok: false, err };
    }
  }));
}

export interface GroupCommit {
  /** Runs `fn` (synchronous) in the next batch, or `data` on the offload; resolves once its batch has committed. */
  run<T>(fn: () => T, data?: unknown): Promise<T>;
  /** Resolves when every call asked so far has been run. */
  drained(): Promise<void>;
  /** No call waiting or running. */
  idle(): boolean;
}

export function groupCommit(db: Database.Database, offload?: Offload): GroupCommit {
  let pending: Call[] = [];
  let scheduled = false;
  let running: Promise<void> = Promise.resolve();
  let busy = false;
  let ranThisTurn = false;

  const all = savepointEach(db);
  const settle = (batch: Call[], outcomes: readonly Outcome[]) => {
    batch.forEach((call, i) => { const o = outcomes[i]!; if (o.ok) call.resolve(o.value); else call.reject(o.err); });
  };
  const runBatch = (batch: Call[]): Promise<void> => {
    if (offload && batch.every((call) => call.data !== undefined) && offload.takes(batch.length)) {
      const sent = offload.run(batch.map((call) => call.data));
      if (sent) return sent.then((outcomes) => settle(batch, outcomes), (err: unknown) => { for (const call of batch) call.reject(err); });
    }
    if (batch.length === 1) {
      // Alone in its turn: its own transaction (or statement), as without grouping.
      const call = batch[0]!;
      return whenFree(call.fn).then(call.resolve, call.reject);
    }
    const fns = batch.map((call) => call.fn);
    return whenFree(() => all.immediate(fns)).then(
      (outcomes) => settle(batch, outcomes),
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
    let batch = pending;
    pending = [];
    // A read among the writes: the writes before it go to the offload together, the rest after them.
    const local = batch.findIndex((call) => call.data === undefined);
    if (offload && local > 0 && offload.takes(local)) { pending = batch.slice(local); batch = batch.slice(0, local); }
    start(batch);
  };

  return {
    run<T>(fn: () => T, data?: unknown): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const call: Call = { fn, data, resolve: resolve as (value: unknown) => void, reject };
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
