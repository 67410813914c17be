import type { ErrorData } from "../../errors/sluice-error.js";
import type { SyncKvStore } from "./kv-store.js";

/**
 * The key-value store itself failed (its database unreachable, its disk full) during a
 * guest's kv call. The guest did nothing wrong: the call ends STORE_UNAVAILABLE, which is
 * not a guest fault, so an outage never quarantines the plugins that use kv.
 */
export class KvStoreFailure extends Error {
  constructor(readonly causeMessage: string) {
    super(causeMessage);
  }

  toData(): ErrorData {
    return { code: "STORE_UNAVAILABLE", message: `the key-value store failed during a guest's kv call: ${this.causeMessage}` };
  }
}

const guarded = <T>(fn: () => T): T => {
  try {
    return fn();
  } catch (err) {
    throw new KvStoreFailure((err as Error)?.message ?? String(err));
  }
};

/** `store`, with every failure of its own turned into a {@link KvStoreFailure}. */
export function guardKv(store: SyncKvStore): SyncKvStore {
  return {
    get: (scope, key) => guarded(() => store.get(scope, key)),
    set: (scope, key, value) => guarded(() => store.set(scope, key, value)),
    delete: (scope, key) => guarded(() => store.delete(scope, key)),
    close: () => store.close(),
  };
}
