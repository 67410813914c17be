/**
 * Async transactions over one synchronous better-sqlite3 connection. A transaction whose
 * body awaits leaves the connection inside BEGIN ... COMMIT while other callers run: they
 * would join it. So every use of the connection goes through one queue: a transaction
 * runs alone from BEGIN IMMEDIATE (SQLite's write lock, which also keeps other processes
 * out) to COMMIT, and single statements wait their turn. A call on the queue from inside
 * a transaction's body would wait for that very transaction: it is refused at once.
 */
import type Database from "better-sqlite3";
import { ReentryGuard } from "./reentry-guard.js";

export class SqliteSerial {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly inside = new ReentryGuard();

  constructor(private readonly db: Database.Database, private readonly failure: (err: unknown) => unknown) {}

  /** Runs `fn` alone, in one IMMEDIATE transaction: committed when it resolves, rolled back when it rejects. */
  transaction<T>(fn: () => Promise<T>): Promise<T> {
    return this.enqueue(async () => {
      this.db.exec("BEGIN IMMEDIATE");
      try {
        const value = await this.inside.run(fn);
        this.db.exec("COMMIT");
        return value;
      } catch (err) {
        if (this.db.inTransaction) this.db.exec("ROLLBACK");
        throw err;
      }
    });
  }

  /** Runs a synchronous `fn` alone (its own statements commit as they go, or it opens a transaction of its own). */
  run<T>(fn: () => T): Promise<T> {
    return this.enqueue(async () => fn());
  }

  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    if (this.inside.inside()) {
      return Promise.reject(new Error("a store call inside a transaction would wait for that transaction: use the tx argument of transaction(fn) instead"));
    }
    const result = this.tail.then(() => fn()).catch((err) => { throw this.failure(err); });
    this.tail = result.catch(() => undefined);
    return result;
  }
}
