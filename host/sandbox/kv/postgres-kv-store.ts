import { createHash } from "node:crypto";
import type { Migration } from "../../storage/migrations.js";
import type { PostgresEngine } from "../../storage/postgres.js";
import { KV_LIMITS, KV_STATUS, kvTooLarge, type KvStatus, type KvStore } from "./kv-store.js";

export const KV_PG_MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "kv", sql: "CREATE TABLE kv (scope BYTEA NOT NULL, key BYTEA NOT NULL, value BYTEA NOT NULL, PRIMARY KEY (scope, key));" },
];

/**
 * The key-value store on PostgreSQL (table `kv` of the shared database), for every host of
 * a fleet. Asynchronous: workers reach it through the bridge (postgres-kv-bridge.ts).
 */
// Scopes are "space\0binding": bytes, since PostgreSQL text cannot hold a NUL.
const scopeBytes = (scope: string): Buffer => Buffer.from(scope, "utf8");
/** The scope's advisory lock key: 64 bits of its hash. */
const lockOf = (scope: string): string => createHash("sha256").update("kv\0").update(scope).digest().readBigInt64BE(0).toString();

export class PostgresKvStore implements KvStore {
  constructor(private readonly db: PostgresEngine, private readonly owned = false) {}

  async get(scope: string, key: Uint8Array): Promise<Uint8Array | undefined> {
    const { rows } = await this.db.query<{ value: Buffer }>("SELECT value FROM kv WHERE scope = $1 AND key = $2", [scopeBytes(scope), Buffer.from(key)]);
    return rows[0] && new Uint8Array(rows[0].value);
  }

  async set(scope: string, key: Uint8Array, value: Uint8Array): Promise<KvStatus> {
    if (kvTooLarge(key, value)) return KV_STATUS.tooLarge;
    const k = Buffer.from(key);
    const v = Buffer.from(value);
    // An existing key takes no slot: one statement, no lock.
    const updated = await this.db.query("UPDATE kv SET value = $3 WHERE scope = $1 AND key = $2", [scopeBytes(scope), k, v]);
    if (updated.rowCount === 1) return KV_STATUS.ok;
    // A new key: count and insert under the scope's lock, so two hosts never both take the
    // last slot. READ COMMITTED reads after the lock is held, so the count sees every
    // insert committed before it.
    return this.db.transaction(async (sql) => {
      await sql.query("SELECT pg_advisory_xact_lock($1::bigint)", [lockOf(scope)]);
      const { rows } = await sql.query<{ ok: boolean }>(
        `INSERT INTO kv (scope, key, value)
           SELECT $1, $2, $3
           WHERE EXISTS (SELECT 1 FROM kv WHERE scope = $1 AND key = $2)
              OR (SELECT count(*) FROM kv WHERE scope = $1) < $4
         ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value
         RETURNING true AS ok`, [scopeBytes(scope), k, v, KV_LIMITS.keysPerScope]);
      return rows.length === 1 ? KV_STATUS.ok : KV_STATUS.quota;
    }, "read committed");
  }

  async delete(scope: string, key: Uint8Array): Promise<KvStatus> {
    const r = await this.db.query("DELETE FROM kv WHERE scope = $1 AND key = $2", [scopeBytes(scope), Buffer.from(key)]);
    return r.rowCount === 1 ? KV_STATUS.ok : KV_STATUS.notFound;
  }

  async close(): Promise<void> {
    if (this.owned) await this.db.close();
  }
}
