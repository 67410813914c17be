/** Gateway keys on SQLite (better-sqlite3); the table can share the registry's `sluice.db`. */
import type Database from "better-sqlite3";
import { SluiceError } from "../errors/sluice-error.js";
import { openSqlite, sqliteStoreError } from "../storage/sqlite-open.js";
import type { MigrationSet } from "../storage/migrations.js";
import { migrateSqlite } from "../storage/sqlite-migrations.js";
import { whenFree } from "../storage/sqlite-busy.js";
import type { GatewayKeyRow, GatewayKeyStore } from "./key-store.js";

export const GATEWAY_KEY_MIGRATIONS: MigrationSet = {
  component: "gateway-keys",
  migrations: {
    // IF NOT EXISTS: files of earlier releases have the table without a migration row.
    sqlite: [{
      version: 1, name: "gateway keys",
      sql: `CREATE TABLE IF NOT EXISTS gateway_keys (
          id TEXT PRIMARY KEY, space_id TEXT NOT NULL, name TEXT, prefix TEXT NOT NULL,
          sha256 TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, revoked_at TEXT
        ) STRICT;
        CREATE INDEX IF NOT EXISTS gateway_keys_space ON gateway_keys (space_id);`,
    }, {
      // The revocation generation (keys.ts caches verified keys while it stands still): bumped
      // by triggers in the revoking transaction itself, so every writer bumps it, this
      // release's or an older one's or an operator's SQL.
      version: 2, name: "gateway key revocation generation",
      sql: `CREATE TABLE gateway_key_generation (id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL) STRICT;
        INSERT INTO gateway_key_generation (id, n) VALUES (1, 0);
        CREATE TRIGGER gateway_keys_revoked AFTER UPDATE ON gateway_keys BEGIN UPDATE gateway_key_generation SET n = n + 1 WHERE id = 1; END;
        CREATE TRIGGER gateway_keys_deleted AFTER DELETE ON gateway_keys BEGIN UPDATE gateway_key_generation SET n = n + 1 WHERE id = 1; END;`,
    }, {
      // Keys made before scopes existed open the gateway, as they always did.
      version: 3, name: "gateway key scope",
      sql: `ALTER TABLE gateway_keys ADD COLUMN scope TEXT NOT NULL DEFAULT 'gateway';`,
    }],
    postgres: [{
      version: 1, name: "gateway keys",
      sql: `CREATE TABLE gateway_keys (
          id TEXT PRIMARY KEY, space_id TEXT NOT NULL, name TEXT, prefix TEXT NOT NULL,
          sha256 TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, revoked_at TEXT
        );
        CREATE INDEX gateway_keys_space ON gateway_keys (space_id);`,
    }, {
      version: 2, name: "gateway key revocation generation",
      sql: `CREATE TABLE gateway_key_generation (id INTEGER PRIMARY KEY CHECK (id = 1), n BIGINT NOT NULL);
        INSERT INTO gateway_key_generation (id, n) VALUES (1, 0);
        CREATE FUNCTION gateway_keys_bump_generation() RETURNS trigger LANGUAGE plpgsql AS
          'BEGIN UPDATE gateway_key_generation SET n = n + 1 WHERE id = 1; RETURN NULL; END';
        CREATE TRIGGER gateway_keys_changed AFTER UPDATE OR DELETE OR TRUNCATE ON gateway_keys
          FOR EACH STATEMENT EXECUTE FUNCTION gateway_keys_bump_generation();`,
    }, {
      version: 3, name: "gateway key scope",
      sql: `ALTER TABLE gateway_keys ADD COLUMN scope TEXT NOT NULL DEFAULT 'gateway';`,
    }],
  },
};

interface Row { id: string; space_id: string; name: string | null; prefix: string; created_at: string; revoked_at: string | null; scope: string }
const rowOf = (r: Row): GatewayKeyRow => ({ id: r.id, spaceId: r.space_id, name: r.name, prefix: r.prefix, createdAt: r.created_at, revokedAt: r.revoked_at, scope: r.scope === "hooks" ? "hooks" : "gateway" });
const COLUMNS = "id, space_id, name, prefix, created_at, revoked_at, scope";

/** Opens the key table in `pathOrDb` (a file, or an open database whose owner closes it). */
export function openSqliteKeyStore(pathOrDb: string | Database.Database): GatewayKeyStore {
  const owned = typeof pathOrDb === "string";
  let db: Database.Database;
  if (typeof pathOrDb === "string") {
    // Shares `sluice.db` with the registry, whose transactions await: wait for its lock without blocking.
    db = openSqlite(pathOrDb, { what: "gateway keys", migrations: [GATEWAY_KEY_MIGRATIONS], busyMs: 0 });
  } else {
    db = pathOrDb;
    try { migrateSqlite(db, [GATEWAY_KEY_MIGRATIONS]); } catch (err) { throw sqliteStoreError(err, "gateway keys: migrating the database"); }
  }
  const q = {
    insert: db.prepare<[string, string, string | null, string, string, string, string]>("INSERT INTO gateway_keys (id, space_id, name, prefix, sha256, created_at, scope) VALUES (?, ?, ?, ?, ?, ?, ?)"),
    byHash: db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM gateway_keys WHERE sha256 = ? AND revoked_at IS NULL`),
    byId: db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM gateway_keys WHERE id = ?`),
    all: db.prepare<[], Row>(`SELECT ${COLUMNS} FROM gateway_keys ORDER BY created_at, id`),
    inSpace: db.prepare<[string], Row>(`SELECT ${COLUMNS} FROM gateway_keys WHERE space_id = ? ORDER BY created_at, id`),
    revoke: db.prepare<[string, string]>("UPDATE gateway_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
    generation: db.prepare<[], number>("SELECT n FROM gateway_key_generation WHERE id = 1").pluck(),
  };
  const guard = <T>(what: string, fn: () => T): Promise<T> => whenFree(fn).catch((err: unknown) => {
    throw new SluiceError("STORE_UNAVAILABLE", `gateway keys: ${what} failed: ${(err as Error)?.message ?? String(err)}`, {}, { cause: err });
  });
  return {
    insert: (row, sha256) => guard("insert", () => { q.insert.run(row.id, row.spaceId, row.name, row.prefix, sha256, row.createdAt, row.scope); }),
    byHash: (sha256) => guard("lookup", () => { const r = q.byHash.get(sha256); return r && rowOf(r); }),
    byId: (id) => guard("lookup", () => { const r = q.byId.get(id); return r && rowOf(r); }),
    list: (spaceId) => guard("list", () => (spaceId === undefined ? q.all.all() : q.inSpace.all(spaceId)).map(rowOf)),
    revoke: (id, at) => guard("revoke", () => { q.revoke.run(at, id); const r = q.byId.get(id); return r && rowOf(r); }),
    generation: () => guard("lookup", () => q.generation.get()!),
    // A local file: one indexed read of one row (about a microsecond), exact on every verify.
    generationLeaseMs: 0,
    close: async () => { if (owned && db.open) db.close(); },
  };
}
