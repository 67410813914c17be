/**
 * The key-value capability's storage contracts. Guests call kv synchronously from inside a
 * worker, so a worker holds a {@link SyncKvStore}: SQLite answers synchronously itself
 * (sqlite-kv-store.ts). An engine that can only answer asynchronously (PostgreSQL)
 * implements {@link KvStore} and is bridged into a SyncKvStore for the workers (a
 * connection thread answered through shared memory). Both shapes keep one set of rules,
 * checked by one contract suite (test/sandbox/kv-store.contract.test.ts, over every engine
 * of test/helpers/store-engines.ts, the sync ones through {@link asyncKv}):
 * - every key lives in a scope (space, binding); scopes never see each other's keys;
 * - `set` refuses keys over KV_LIMITS.keyBytes and values over KV_LIMITS.valueBytes
 *   (`tooLarge`), and a new key in a scope holding KV_LIMITS.keysPerScope keys (`quota`);
 *   the count and the write are one atomic step (two writers never both take the last slot);
 * - `delete` answers `notFound` for an absent key.
 */
export const KV_LIMITS = { keyBytes: 256, valueBytes: 64 * 1024, keysPerScope: 1024 } as const;
export const KV_STATUS = { ok: 0, notFound: -1, tooLarge: -2, quota: -3 } as const;
export type KvStatus = (typeof KV_STATUS)[keyof typeof KV_STATUS];

/** What a worker calls, synchronously, for a guest. */
export interface SyncKvStore {
  get(scope: string, key: Uint8Array): Uint8Array | undefined;
  set(scope: string, key: Uint8Array, value: Uint8Array): KvStatus;
  delete(scope: string, key: Uint8Array): KvStatus;
  close(): void;
}

/** The same store for an engine that answers asynchronously. */
export interface KvStore {
  get(scope: string, key: Uint8Array): Promise<Uint8Array | undefined>;
  set(scope: string, key: Uint8Array, value: Uint8Array): Promise<KvStatus>;
  delete(scope: string, key: Uint8Array): Promise<KvStatus>;
  close(): Promise<void>;
}

/** The size rule of `set`, shared by every engine. */
export function kvTooLarge(key: Uint8Array, value: Uint8Array): boolean {
  return key.byteLength > KV_LIMITS.keyBytes || value.byteLength > KV_LIMITS.valueBytes;
}

/** A synchronous store seen through the async contract (for the contract suite and callers outside workers). */
export function asyncKv(store: SyncKvStore): KvStore {
  return {
    get: async (scope, key) => store.get(scope, key),
    set: async (scope, key, value) => store.set(scope, key, value),
    delete: async (scope, key) => store.delete(scope, key),
    close: async () => store.close(),
  };
}
