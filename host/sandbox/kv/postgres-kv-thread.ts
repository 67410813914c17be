/**
 * The connection thread behind a worker's PostgreSQL key-value store: it holds the
 * connection and answers the worker, which waits for each answer (synckit: a
 * SharedArrayBuffer and Atomics.wait). Bytes cross as Uint8Arrays, statuses as numbers.
 */
import { runAsWorker } from "synckit";
import { openPostgres } from "../../storage/postgres.js";
import { PostgresKvStore } from "./postgres-kv-store.js";

export type KvRequest =
  | { op: "connect" }
  | { op: "get"; scope: string; key: Uint8Array }
  | { op: "set"; scope: string; key: Uint8Array; value: Uint8Array }
  | { op: "delete"; scope: string; key: Uint8Array };

let store: Promise<PostgresKvStore> | undefined;

runAsWorker(async (url: string, request: KvRequest): Promise<Uint8Array | number | null> => {
  // One worker's guest calls never overlap: two connections cover a set's transaction.
  store ??= openPostgres(url, { max: 2, applicationName: "sluice:kv" }).then((db) => new PostgresKvStore(db, true));
  const kv = await store.catch((e: unknown) => { store = undefined; throw e; });
  switch (request.op) {
    case "connect": return null;
    case "get": return (await kv.get(request.scope, request.key)) ?? null;
    case "set": return kv.set(request.scope, request.key, request.value);
    case "delete": return kv.delete(request.scope, request.key);
  }
});
