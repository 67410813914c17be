import Database from "better-sqlite3";
import { ensurePrivateFile } from "../storage/private-files.js";

export const KV_LIMITS = { keyBytes: 256, valueBytes: 64 * 1024, keysPerScope: 1024 } as const;
export const KV_STATUS = { ok: 0, notFound: -1, tooLarge: -2, quota: -3 } as const;

/**
 * The key-value capability's store. Guests call it synchronously from inside a worker,
 * so it must answer synchronously and be shared by every worker: SQLite in WAL mode does
 * both. Every key lives in a scope (space, binding), so tenants never see each other's data.
 */
export class KvStore {
  private readonly db: Database.Database;
  private readonly getStmt: Database.Statement<[string, Buffer], { value: Buffer }>;
  private readonly setStmt: Database.Statement<[string, Buffer, Buffer]>;
  private readonly delStmt: Database.Statement<[string, Buffer]>;
  private readonly countStmt: Database.Statement<[string], { n: number }>;
  private readonly hasStmt: Database.Statement<[string, Buffer], { one: number }>;

  constructor(path: string) {
    // Tenants' data: owner-only before SQLite writes anything into it.
    if (path !== ":memory:") ensurePrivateFile(path);
    this.db = new Database(path);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("busy_timeout = 2000");
    this.db.exec("CREATE TABLE IF NOT EXISTS kv (scope TEXT NOT NULL, key BLOB NOT NULL, value BLOB NOT NULL, PRIMARY KEY (scope, key)) WITHOUT ROWID");
    this.getStmt = this.db.prepare("SELECT value FROM kv WHERE scope = ? AND key = ?");
    this.setStmt = this.db.prepare("INSERT INTO kv (scope, key, value) VALUES (?, ?, ?) ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value");
    this.delStmt = this.db.prepare("DELETE FROM kv WHERE scope = ? AND key = ?");
    this.countStmt = this.db.prepare("SELECT count(*) AS n FROM kv WHERE scope = ?");
    this.hasStmt = this.db.prepare("SELECT 1 AS one FROM kv WHERE scope = ? AND key = ?");
  }

  get(scope: string, key: Uint8Array): Uint8Array | undefined {
    return this.getStmt.get(scope, Buffer.from(key))?.value;
  }

  set(scope: string, key: Uint8Array, value: Uint8Array): number {
    if (key.byteLength > KV_LIMITS.keyBytes || value.byteLength > KV_LIMITS.valueBytes) return KV_STATUS.tooLarge;
    const k = Buffer.from(key);
    if (!this.hasStmt.get(scope, k) && this.countStmt.get(scope)!.n >= KV_LIMITS.keysPerScope) return KV_STATUS.quota;
    this.setStmt.run(scope, k, Buffer.from(value));
    return KV_STATUS.ok;
  }

  delete(scope: string, key: Uint8Array): number {
    return this.delStmt.run(scope, Buffer.from(key)).changes > 0 ? KV_STATUS.ok : KV_STATUS.notFound;
  }

  close(): void {
    this.db.close();
  }
}
