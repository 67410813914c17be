/**
 * Every SQLite database Sluice keeps (registry, records, keys, quarantine, guests' kv) opens
 * here, the same way: an owner-only file before SQLite writes into it, WAL, a busy timeout
 * while opening and migrating (another process may hold the lock), the store's migrations,
 * and one error naming the store when any of it fails.
 */
import { createRequire } from "node:module";
import type Database from "better-sqlite3";
import { SluiceError } from "../errors/sluice-error.js";
import type { MigrationSet } from "./migrations.js";
import { ensurePrivateFile } from "./private-files.js";
import { migrateSqlite } from "./sqlite-migrations.js";

export interface SqliteOpenOptions {
  /** Names the store in errors: "records store", "the registry database", ... */
  what: string;
  migrations?: readonly MigrationSet[];
  /** `PRAGMA synchronous`; SQLite's own default (FULL) when absent. */
  synchronous?: "OFF" | "NORMAL" | "FULL" | "EXTRA";
  foreignKeys?: boolean;
  /** Deleted rows are overwritten with zeros, not left readable in free pages. */
  secureDelete?: boolean;
  /** busy_timeout while opening and migrating. Default 5000 ms. */
  openBusyMs?: number;
  /**
   * busy_timeout from then on. Default: as while opening. 0 for a file whose other users
   * await inside transactions in this process (storage/sqlite-busy.ts waits without blocking).
   */
  busyMs?: number;
}

/**
 * Opens (creating and migrating) the database at `file`; `:memory:` gives a throwaway one.
 * A failure is STORE_FULL when the disk is full, else STORE_UNAVAILABLE, naming the store and the file.
 */
export function openSqlite(file: string, options: SqliteOpenOptions): Database.Database {
  try {
    if (file !== ":memory:") ensurePrivateFile(file);
    // Required when a store opens, not imported: `import "sluice"` does not load the native SQLite binding.
    const db = new (createRequire(import.meta.url)("better-sqlite3") as typeof Database)(file);
    db.pragma("journal_mode = WAL");
    if (options.synchronous) db.pragma(`synchronous = ${options.synchronous}`);
    db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.openBusyMs ?? 5000))}`);
    if (options.foreignKeys) db.pragma("foreign_keys = ON");
    if (options.secureDelete) db.pragma("secure_delete = ON");
    if (options.migrations) migrateSqlite(db, options.migrations);
    if (options.busyMs !== undefined) db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyMs))}`);
    return db;
  } catch (err) {
    throw sqliteStoreError(err, `${options.what}: opening ${file}`, { file });
  }
}

/** Maps a SQLite failure to the catalogue once, at a store's edge; errors that carry a code already pass through. */
export function sqliteStoreError(err: unknown, what: string, details: Record<string, unknown> = {}): SluiceError {
  if (err instanceof SluiceError) return err;
  const code = (err as { code?: string })?.code;
  return new SluiceError(code === "SQLITE_FULL" ? "STORE_FULL" : "STORE_UNAVAILABLE", `${what} failed: ${(err as Error)?.message ?? String(err)}`, { ...details, sqlite: code ?? null }, { cause: err });
}
