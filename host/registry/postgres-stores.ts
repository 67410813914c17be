/**
 * Every store a fleet shares, on one PostgreSQL database: opened from a postgres:// URL,
 * migrated on open (the one migration runner, under its advisory lock, so hosts starting
 * together never both migrate), all on one pool.
 */
import { postgresKeyStore } from "../keys/postgres-key-store.js";
import { GATEWAY_KEY_MIGRATIONS } from "../keys/sqlite-key-store.js";
import type { GatewayKeyStore } from "../keys/key-store.js";
import { postgresApiTokenStore } from "../keys/postgres-api-token-store.js";
import { API_TOKEN_MIGRATIONS } from "../keys/sqlite-api-token-store.js";
import type { ApiTokenStore } from "../keys/api-token-store.js";
import type { ControlAuditStore } from "../records/control-audit-store.js";
import { postgresControlAudit } from "../records/postgres-control-audit.js";
import { CONTROL_AUDIT_MIGRATIONS } from "../records/sqlite-control-audit.js";
import { PAYLOAD_MIGRATIONS, RECORDS_MIGRATIONS } from "../records/migrations.js";
import { AGENT_DOOR_MIGRATIONS } from "../records/agent-door-migrations.js";
import { postgresAgentDoor } from "../records/postgres-agent-door-store.js";
import type { AgentDoorStore } from "../records/agent-door-store.js";
import { postgresPayloads, postgresRecords, type PostgresRecordsOptions } from "../records/postgres-store.js";
import { createSealer, ephemeralSealer } from "../records/sealed.js";
import type { OperationStore, PayloadStore } from "../records/store.js";
import { postgresQuarantineStore } from "../reliability/postgres-quarantine-store.js";
import { QUARANTINE_MIGRATIONS } from "../reliability/sqlite-quarantine-store.js";
import type { QuarantineStore } from "../reliability/quarantine-store.js";
import { KV_PG_MIGRATIONS } from "../sandbox/kv/postgres-kv-store.js";
import type { MigrationSet } from "../storage/migrations.js";
import { SluiceError } from "../errors/sluice-error.js";
import { deferredPostgres, isPostgresUrl, migratePostgres, openPostgres, redactDatabaseUrl, type PostgresEngine, type PostgresOptions } from "../storage/postgres.js";
import { PostgresArtifactStore } from "./postgres-artifacts.js";
import { REGISTRY_MIGRATIONS } from "./migrations.js";
import { postgresRegistryStore } from "./postgres-store.js";
import type { RegistryStore } from "./store.js";

/**
 * The shared database's schema: every store's migration set (each declares both dialects;
 * kv's SQLite table is created by its own file, so its set is PostgreSQL's only).
 */
export const POSTGRES_SCHEMA: readonly MigrationSet[] = [
  REGISTRY_MIGRATIONS,
  RECORDS_MIGRATIONS,
  PAYLOAD_MIGRATIONS,
  GATEWAY_KEY_MIGRATIONS,
  API_TOKEN_MIGRATIONS,
  CONTROL_AUDIT_MIGRATIONS,
  QUARANTINE_MIGRATIONS,
  AGENT_DOOR_MIGRATIONS,
  { component: "kv", migrations: { sqlite: [], postgres: KV_PG_MIGRATIONS } },
];

export interface PostgresStores {
  readonly db: PostgresEngine;
  readonly registry: RegistryStore;
  readonly artifacts: PostgresArtifactStore;
  readonly records: OperationStore;
  readonly gatewayKeys: GatewayKeyStore;
  /** The management API's named tokens. */
  readonly apiTokens: ApiTokenStore;
  /** Who did what to releases, plugins, keys and tokens. */
  readonly controlAudit: ControlAuditStore;
  readonly quarantine: QuarantineStore;
  /** The coding agents' door: tool-call pairing and the events it answered, shared by the fleet. */
  readonly agentDoor: AgentDoorStore;
  /** Protected payloads, when `payloadRetentionMs` was given. */
  readonly payloads?: PayloadStore;
  /** Where workers open the key-value store (the URL: postgres-kv-bridge.ts). */
  readonly kvLocation: string;
  close(): Promise<void>;
}

export interface OpenPostgresStoresOptions extends PostgresOptions, Omit<PostgresRecordsOptions, "sealer"> {
  /** Opens the protected payload store with this retention. */
  payloadRetentionMs?: number;
  /**
   * The fleet's secret (every host the same: `sluice serve --digest-key-file`), which seals
   * records, real results and payloads (records/sealed.ts). Default: a random key, so what
   * this process stores opens in this process only.
   */
  key?: Uint8Array | string;
}

async function openMigrated(url: string, options: OpenPostgresStoresOptions): Promise<PostgresEngine> {
  const db = await openPostgres(url, options);
  try {
    await migratePostgres(db, POSTGRES_SCHEMA);
  } catch (err) {
    await db.close();
    throw err;
  }
  return db;
}

function storesOn(db: PostgresEngine, url: string, options: OpenPostgresStoresOptions): PostgresStores {
  const sealer = options.key !== undefined ? createSealer(options.key) : ephemeralSealer();
  const records = postgresRecords(db, { ...options, sealer });
  const payloads = options.payloadRetentionMs !== undefined ? postgresPayloads(db, { retentionMs: options.payloadRetentionMs, sealer }) : undefined;
  return {
    db, records, kvLocation: url,
    registry: postgresRegistryStore(db),
    artifacts: new PostgresArtifactStore(db),
    gatewayKeys: postgresKeyStore(db),
    apiTokens: postgresApiTokenStore(db),
    controlAudit: postgresControlAudit(db),
    quarantine: postgresQuarantineStore(db),
    agentDoor: postgresAgentDoor(db),
    ...(payloads ? { payloads } : {}),
    async close() {
      await records.close();
      await payloads?.close();
      await db.close();
    },
  };
}

/**
 * Opens and migrates every shared store on the database at `url`; STORE_UNAVAILABLE when
 * it cannot be reached, CONFIG_INVALID when `url` is not a postgres:// URL.
 *
 * @example
 * const shared = await openPostgresStores(process.env.SLUICE_DATABASE_URL!);
 * const host = createHost({ records: shared.records, kvPath: shared.kvLocation });
 */
export async function openPostgresStores(url: string, options: OpenPostgresStoresOptions = {}): Promise<PostgresStores> {
  return storesOn(await openMigrated(url, options), url, options);
}

/**
 * The same stores returned at once, connecting and migrating in the background: for
 * synchronous constructors (`createHost({ database })`). Every store call waits for the
 * database; when it cannot be reached the calls fail STORE_UNAVAILABLE and the next one
 * tries again.
 */
export function deferredPostgresStores(url: string, options: OpenPostgresStoresOptions = {}): PostgresStores {
  if (!isPostgresUrl(url)) throw new SluiceError("CONFIG_INVALID", `database must be a postgres:// or postgresql:// URL (got ${redactDatabaseUrl(url)})`);
  return storesOn(deferredPostgres(url, () => openMigrated(url, options)), url, options);
}
