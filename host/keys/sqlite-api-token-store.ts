/** Named API tokens on SQLite (better-sqlite3), in the registry's `sluice.db`. */
import type Database from "better-sqlite3";
import { SluiceError } from "../errors/sluice-error.js";
import { openSqlite, sqliteStoreError } from "../storage/sqlite-open.js";
import type { MigrationSet } from "../storage/migrations.js";
import { migrateSqlite } from "../storage/sqlite-migrations.js";
import { whenFree } from "../storage/sqlite-busy.js";
import type { ApiRole } from "./api-roles.js";
import type { ApiTokenRow, ApiTokenStore } from "./api-token-store.js";

const TABLE = `id TEXT PRIMARY KEY, name TEXT NOT NULL, role TEXT NOT NULL CHECK (role IN ('viewer', 'deployer', 'admin')),
  prefix TEXT NOT NULL, sha256 TEXT NOT NULL UNIQUE, created_at TEXT NOT NULL, revoked_at TEXT`;

export const API_TOKEN_MIGRATIONS: MigrationSet = {
  component: "api-tokens",
  migrations: {
    sqlite: [{ version: 1, name: "named api tokens", sql: `CREATE TABLE api_tokens (${TABLE}) STRICT; CREATE UNIQUE INDEX api_tokens_live_name ON api_tokens (name) WHERE revoked_at IS NULL;` }],
    postgres: [{ version: 1, name: "named api tokens", sql: `CREATE TABLE api_tokens (${TABLE}); CREATE UNIQUE INDEX api_tokens_live_name ON api_tokens (name) WHERE revoked_at IS NULL;` }],
  },
};

export interface Row { id: string; name: string; role: ApiRole; prefix: string; created_at: string; revoked_at: string | null }
export const API_TOKEN_COLUMNS = "id, name, role, prefix, created_at, revoked_at";
export const apiTokenRowOf = (r: Row): ApiTokenRow => ({ id: r.id, name: r.name, role: r.role, prefix: r.prefix, createdAt: r.created_at, revokedAt: r.revoked_at });

/** A unique-index failure on the live name, told apart from any other store failure. */
export function nameTaken(err: unknown, name: string): SluiceError | undefined {
  const text = String((err as Error)?.message ?? "");
  if (!/api_tokens_live_name|api_tokens\.name/.test(text)) return undefined;
  return new SluiceError("API_TOKEN_NAME_TAKEN", `a live API token is already named ${JSON.stringify(name)}; revoke it first or choose another name`, { name });
}

/** Opens the token table in `pathOrDb` (a file, or an open database whose owner closes it). */
export function openSqliteApiTokenStore(pathOrDb: string | Database.Database): ApiTokenStore {
  const owned = typeof pathOrDb === "string";
  let db: Database.Database;
  if (typeof pathOrDb === "string") {
    // Shares `sluice.db` with the registry, whose transactions await: wait for its lock without blocking.
    db = openSqlite(pathOrDb, { what: "API tokens", migrations: [API_TOKEN_MIGRATIONS], busyMs: 0 });
  } else {
    db = pathOrDb;
    try { migrateSqlite(db, [API_TOKEN_MIGRATIONS]); } catch (err) { throw sqliteStoreError(err, "API tokens: migrating the database"); }
  }
  const q = {
    insert: db.prepare<[string, string, string, string, string, string]>("INSERT INTO api_tokens (id, name, role, prefix, sha256, created_at) VALUES (?, ?, ?, ?, ?, ?)"),
    byHash: db.prepare<[string], Row>(`SELECT ${API_TOKEN_COLUMNS} FROM api_tokens WHERE sha256 = ? AND revoked_at IS NULL`),
    byId: db.prepare<[string], Row>(`SELECT ${API_TOKEN_COLUMNS} FROM api_tokens WHERE id = ?`),
    all: db.prepare<[], Row>(`SELECT ${API_TOKEN_COLUMNS} FROM api_tokens ORDER BY created_at, id`),
    revoke: db.prepare<[string, string]>("UPDATE api_tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
  };
  const guard = <T>(what: string, fn: () => T): Promise<T> => whenFree(fn).catch((err: unknown) => {
    if (err instanceof SluiceError) throw err;
    throw new SluiceError("STORE_UNAVAILABLE", `API tokens: ${what} failed: ${(err as Error)?.message ?? String(err)}`, {}, { cause: err });
  });
  return {
    insert: (row, sha256) => guard("insert", () => {
      try { q.insert.run(row.id, row.name, row.role, row.prefix, sha256, row.createdAt); } catch (err) { throw nameTaken(err, row.name) ?? err; }
    }),
    byHash: (sha256) => guard("lookup", () => { const r = q.byHash.get(sha256); return r && apiTokenRowOf(r); }),
    list: () => guard("list", () => q.all.all().map(apiTokenRowOf)),
    revoke: (id, at) => guard("revoke", () => { q.revoke.run(at, id); const r = q.byId.get(id); return r && apiTokenRowOf(r); }),
    close: async () => { if (owned && db.open) db.close(); },
  };
}
