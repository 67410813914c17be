import { createSyncFn } from "synckit";
import type { KvStatus, SyncKvStore } from "./kv-store.js";
import type { KvRequest } from "./postgres-kv-thread.js";
import { workerFile } from "../worker-file.js";

/** How long a guest's kv call waits for the database before it fails (the guest's own time limit usually ends it sooner). */
const KV_TIMEOUT_MS = 10_000;

/**
 * The synchronous face of the PostgreSQL key-value store, for a worker: each call is sent
 * to a connection thread of this worker's own and waited for (postgres-kv-thread.ts).
 * Blocking is what the guest's call needs anyway: it is synchronous and the worker runs
 * nothing else meanwhile.
 */
export class PostgresKvBridge implements SyncKvStore {
  private readonly call: (url: string, request: KvRequest) => Uint8Array | number | null;

  constructor(private readonly url: string) {
    this.call = createSyncFn(workerFile("kv/postgres-kv-thread"), { timeout: KV_TIMEOUT_MS }) as never;
    // Boot the thread and connect now; a database that is down fails the first real call instead.
    try {
      this.call(this.url, { op: "connect" });
    } catch { /* reported by the call that needs the store */ }
  }

  get(scope: string, key: Uint8Array): Uint8Array | undefined {
    const r = this.call(this.url, { op: "get", scope, key });
    return r instanceof Uint8Array ? r : undefined;
  }

  set(scope: string, key: Uint8Array, value: Uint8Array): KvStatus {
    return this.call(this.url, { op: "set", scope, key, value }) as KvStatus;
  }

  delete(scope: string, key: Uint8Array): KvStatus {
    return this.call(this.url, { op: "delete", scope, key }) as KvStatus;
  }

  // The thread is unref'd: it ends with the worker. Its connection closes with it.
  close(): void {}
}
