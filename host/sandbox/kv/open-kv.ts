import type { SyncKvStore } from "./kv-store.js";
import { guardKv } from "./kv-failure.js";
import { PostgresKvBridge } from "./postgres-kv-bridge.js";
import { SqliteKvStore } from "./sqlite-kv-store.js";

/**
 * The store a worker's guests use for `location` (the sandbox's `kvPath`): a SQLite file,
 * or a postgres:// URL (the fleet's shared database, reached through the worker's
 * connection thread: postgres-kv-bridge.ts).
 */
export function openWorkerKv(location: string): SyncKvStore {
  return guardKv(isPostgresLocation(location) ? new PostgresKvBridge(location) : new SqliteKvStore(location));
}

export function isPostgresLocation(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}
