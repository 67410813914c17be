import type { SyncKvStore } from "./kv-store.js";
import { SqliteKvStore } from "./sqlite-kv-store.js";

/**
 * The store a worker's guests use for `location` (the sandbox's `kvPath`): a SQLite file.
 * Another engine plugs in here by its location's scheme (e.g. `postgres://`), bridged into
 * the synchronous shape workers need.
 */
export function openWorkerKv(location: string): SyncKvStore {
  return new SqliteKvStore(location);
}
