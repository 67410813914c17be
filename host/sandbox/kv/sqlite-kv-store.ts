import type Database from "better-sqlite3";
import { openSqlite } from "../../storage/sqlite-open.js";
import { KV_LIMITS, KV_STATUS, kvTooLarge, type KvStatus, type SyncKvStore } from "./kv-store.js";

/**
 * The key-value store on SQLite in WAL mode: it answers synchronously (what a guest's call
 * needs) and is shared by every worker and every process opening the same file.
 */
export class SqliteKvStore implements SyncKvStore {
  private readonly db: Database.Database;
  private readonly getStmt: Database.Statement<[string, Buffer], { value: Buffer }>;
  private readonly setStmt: Database.Statement<[string, Buffer, Buffer]>;
  private readonly delStmt: Database.Statement<[string, Buffer]>;
  private readonly countStmt: Database.Statement<[string], { n: number }>;
  private readonly hasStmt: Database.Statement<[string, Buffer], { one: number }>;
  private readonly setChecked: (scope: string, key: Buffer, value: Buffer) => KvStatus;

  constructor(path: string) {
    this.db = openSqlite(path, { what: "guests' key-value store", openBusyMs: 2000 });
    this.db.exec("CREATE TABLE IF NOT EXISTS kv (scope TEXT NOT NULL, key BLOB NOT NULL, value BLOB NOT NULL, PRIMARY KEY (scope, key)) WITHOUT ROWID");
    this.getStmt = this.db.prepare("SELECT value FROM kv WHERE scope = ? AND key = ?");
    this.setStmt = this.db.prepare("INSERT INTO kv (scope, key, value) VALUES (?, ?, ?) ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value");
    this.delStmt = this.db.prepare("DELETE FROM kv WHERE scope = ? AND key = ?");
    this.countStmt = this.db.prepare("SELECT count(*) AS n FROM kv WHERE scope = ?");
    this.hasStmt = this.db.prepare("SELECT 1 AS one FROM kv WHERE scope = ? AND key = ?");
    // Count and write in one IMMEDIATE transaction: two workers never both take the last slot.
    const tx = this.db.transaction((scope: string, key: Buffer, value: Buffer): KvStatus => {
      if (!this.hasStmt.get(scope, key) && this.countStmt.get(scope)!.n >= KV_LIMITS.keysPerScope) return KV_STATUS.quota;
      this.setStmt.run(scope, key, value);
      return KV_STATUS.ok;
    });
    this.setChecked = (scope, key, value) => tx.immediate(scope, key, value);
  }

  get(scope: string, key: Uint8Array): Uint8Array | undefined {
    return this.getStmt.get(scope, Buffer.from(key))?.value;
  }

  set(scope: string, key: Uint8Array, value: Uint8Array): KvStatus {
    if (kvTooLarge(key, value)) return KV_STATUS.tooLarge;
    return this.setChecked(scope, Buffer.from(key), Buffer.from(value));
  }

  delete(scope: string, key: Uint8Array): KvStatus {
    return this.delStmt.run(scope, Buffer.from(key)).changes > 0 ? KV_STATUS.ok : KV_STATUS.notFound;
  }

  close(): void {
    this.db.close();
  }
}
