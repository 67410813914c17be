/**
 * Every storage engine the contract suites run against. A new engine joins every suite by
 * appending one entry to STORE_ENGINES; a store an engine does not have is left out (the
 * suites skip that engine for that store, they never fake it).
 */
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RegistryStore } from "../../host/registry/store.js";
import { openSqliteStore } from "../../host/registry/sqlite-store.js";
import type { OperationStore, PayloadStore } from "../../host/records/store.js";
import { createMemoryPayloads, createMemoryRecords } from "../../host/records/memory-store.js";
import { openSqlitePayloads, openSqliteRecords } from "../../host/records/sqlite-store.js";
import type { GatewayKeyStore } from "../../host/keys/key-store.js";
import type { ApiTokenStore } from "../../host/keys/api-token-store.js";
import { openSqliteApiTokenStore } from "../../host/keys/sqlite-api-token-store.js";
import type { ControlAuditStore } from "../../host/records/control-audit-store.js";
import { openSqliteControlAudit } from "../../host/records/sqlite-control-audit.js";
import type { QuarantineStore } from "../../host/reliability/quarantine-store.js";
import { asyncKv, type KvStore } from "../../host/sandbox/kv/kv-store.js";
import { SqliteKvStore } from "../../host/sandbox/kv/sqlite-kv-store.js";
import { openSqliteKeyStore } from "../../host/keys/sqlite-key-store.js";
import { createMemoryQuarantineStore } from "../../host/reliability/memory-quarantine-store.js";
import { openSqliteQuarantineStore } from "../../host/reliability/sqlite-quarantine-store.js";
import { PostgresKvStore } from "../../host/sandbox/kv/postgres-kv-store.js";
import { openPostgresStores, type OpenPostgresStoresOptions, type PostgresStores } from "../../host/registry/postgres-stores.js";
import { testDatabaseUrl } from "./postgres.js";

export interface StoreEngine {
  name: string;
  /** Each factory opens a fresh, empty, migrated store; the suite closes it. */
  registry?: () => Promise<RegistryStore>;
  records?: (options?: { resultRetentionMs?: number }) => Promise<OperationStore>;
  payloads?: (options: { retentionMs: number }) => Promise<PayloadStore>;
  gatewayKeys?: () => Promise<GatewayKeyStore>;
  apiTokens?: () => Promise<ApiTokenStore>;
  controlAudit?: () => Promise<ControlAuditStore>;
  quarantine?: () => Promise<QuarantineStore>;
  kv?: () => Promise<KvStore>;
}

let scratch: string | undefined;
/** A fresh file path in one temporary folder, removed when the process exits. */
export function tempFile(name: string): string {
  if (!scratch) {
    const dir = mkdtempSync(join(tmpdir(), "sluice-engines-"));
    scratch = dir;
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
  return join(scratch, `${name}-${Math.random().toString(36).slice(2)}.db`);
}

/** One character of a sealed text changed near its end, as damage at rest would change it. */
export const damagedText = (text: string): string => text.slice(0, -6) + (text.at(-6) === "A" ? "B" : "A") + text.slice(-5);

const damagers = new WeakMap<OperationStore, (operationId: string) => Promise<void>>();
const damageable = (store: OperationStore, damage: (operationId: string) => Promise<void>): OperationStore => { damagers.set(store, damage); return store; };

/** A SQLite records store on `file` whose stored records {@link recordDamager} can damage. */
export function damageableSqlite(store: OperationStore, file: string): OperationStore {
  return damageable(store, async (id) => {
    const db = new Database(file);
    try {
      const row = db.prepare("SELECT record FROM operation_records WHERE operation_id = ?").get(id) as { record: string };
      db.prepare("UPDATE operation_records SET record = ? WHERE operation_id = ?").run(damagedText(row.record), id);
    } finally { db.close(); }
  });
}

/**
 * Changes one character of the stored sealed text of record `operationId`, beside the store
 * (as damage at rest would): undefined for a store that keeps records as objects (memory),
 * where nothing can be damaged so.
 */
export function recordDamager(store: OperationStore): ((operationId: string) => Promise<void>) | undefined {
  return damagers.get(store);
}

export const memoryEngine: StoreEngine = {
  name: "memory",
  records: async (options) => createMemoryRecords(options),
  payloads: async (options) => createMemoryPayloads(options),
  quarantine: async () => createMemoryQuarantineStore(),
};

export const sqliteEngine: StoreEngine = {
  name: "SQLite",
  registry: async () => openSqliteStore(tempFile("registry")),
  records: async (options) => {
    const file = tempFile("records");
    return damageableSqlite(openSqliteRecords(file, options), file);
  },
  payloads: async (options) => openSqlitePayloads(tempFile("payloads"), options),
  gatewayKeys: async () => openSqliteKeyStore(tempFile("keys")),
  apiTokens: async () => openSqliteApiTokenStore(tempFile("tokens")),
  controlAudit: async () => openSqliteControlAudit(tempFile("control")),
  quarantine: async () => openSqliteQuarantineStore(tempFile("quarantine")),
  kv: async () => asyncKv(new SqliteKvStore(tempFile("kv"))),
};

/** SQLite records whose every write runs on the store's writer thread (host/records/sqlite-writer.ts): the path batches of concurrent operations take. */
export const sqliteWriterThreadEngine: StoreEngine = {
  name: "SQLite, every write on the writer thread",
  records: async (options) => {
    const file = tempFile("records-thread");
    return damageableSqlite(openSqliteRecords(file, { ...options, writerThread: "always" }), file);
  },
};

/** Each store on a database of its own on the run's PostgreSQL server; closing the store closes its pool. */
async function postgresStore<T extends { close(): Promise<void> }>(pick: (s: PostgresStores) => T, options: OpenPostgresStoresOptions = {}): Promise<T> {
  const stores = await openPostgresStores(await testDatabaseUrl("contract"), { max: 4, ...options });
  const store = pick(stores);
  return Object.assign(Object.create(Object.getPrototypeOf(store)) as T, store, { close: async () => { await store.close(); await stores.close(); } });
}

export const postgresEngine: StoreEngine = {
  name: "PostgreSQL",
  registry: () => postgresStore((s) => s.registry),
  records: async (options) => {
    let db: PostgresStores["db"] | undefined;
    const store = await postgresStore((s) => { db = s.db; return s.records; }, options);
    return damageable(store, async (id) => {
      const { rows } = await db!.query<{ record: string }>("SELECT record FROM operation_records WHERE operation_id = $1", [id]);
      await db!.query("UPDATE operation_records SET record = $1 WHERE operation_id = $2", [damagedText(rows[0]!.record), id]);
    });
  },
  payloads: (options) => postgresStore((s) => s.payloads!, { payloadRetentionMs: options.retentionMs }),
  gatewayKeys: () => postgresStore((s) => s.gatewayKeys),
  apiTokens: () => postgresStore((s) => s.apiTokens),
  controlAudit: () => postgresStore((s) => s.controlAudit),
  quarantine: () => postgresStore((s) => s.quarantine),
  kv: () => postgresStore((s) => new PostgresKvStore(s.db)),
};

export const STORE_ENGINES: StoreEngine[] = [memoryEngine, sqliteEngine, sqliteWriterThreadEngine, postgresEngine];

/** The engines that have store `kind`, each with its factory. */
export function enginesWith<K extends Exclude<keyof StoreEngine, "name">>(kind: K): [string, NonNullable<StoreEngine[K]>][] {
  return STORE_ENGINES.filter((e) => e[kind] !== undefined).map((e) => [e.name, e[kind]!]);
}
