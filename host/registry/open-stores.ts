/**
 * Opening a registry's stores: the data folder, the deployment's key, the registry store
 * (SQLite in the data folder, or a shared PostgreSQL database), the artifacts, the
 * operation records and the host they drive; and closing them again, in order.
 */
import path from "node:path";
import { createHost, type Host, type HostOptions } from "../host.js";
import { SluiceError } from "../errors/sluice-error.js";
import { ensurePrivateDir } from "../storage/private-files.js";
import { DEFAULT_LIMITS, HOST_MAX_LIMITS } from "../sandbox/limits.js";
import { openSqliteRecords } from "../records/sqlite-store.js";
import type { OperationStore } from "../records/store.js";
import { ArtifactStore, type Artifacts } from "./artifacts.js";
import { loadDigestKey } from "./digest-key.js";
import type { PrefetchReport } from "./plugin-prefetch.js";
import type { PostgresStores } from "./postgres-stores.js";
import type { ReleaseFeed } from "./release-feed.js";
import type { ReleaseSyncReport } from "./release-watcher.js";
import { openSqliteStore } from "./sqlite-store.js";
import type { RegistryStore } from "./store.js";

/** Options of {@link Registry.open}: the data folder, the host and the store's limits. */
export interface RegistryOptions {
  /** Folder of the database (`sluice.db`), the artifacts (`artifacts/`) and the key-value store (`kv.sqlite`). */
  dataDir: string;
  /**
   * A postgres:// URL: keep the registry, the plugin code, the operation records and the
   * key-value data in this PostgreSQL database, shared by every host opened on it (each
   * host picks up releases activated through any other). Default: SQLite files in `dataDir`.
   * `dataDir` still holds this host's digest key and API token.
   */
  database?: string;
  /** With `database`: keep every stage's payloads in it for this long (the protected payload store, shared by the fleet). */
  payloadRetentionMs?: number;
  /** A host to drive; by default the registry creates one and closes it with itself. */
  host?: Host;
  hostOptions?: HostOptions;
  /** How long a write waits for another writer's lock before STORE_UNAVAILABLE. Default 5000. */
  busyTimeoutMs?: number;
  /** Largest module accepted on upload. Default 4 MiB, at most the host's 16 MiB. */
  maxModuleBytes?: number;
  /** Key of the records' digests and of their sealed content; default `<data>/digest.key`, generated on first open (digest-key.ts explains rotation). */
  digestSecret?: Uint8Array | string;
  /** How long a real result is kept for resume after its operation was last updated; then it is deleted. Default 24 h. */
  resultRetentionMs?: number;
  /**
   * Follow the database's active revision, so an activation or rollback made through another
   * process on the same database reaches this host (release-watcher.ts). Default: on, with
   * the engine's feed (SQLite: the active revision polled every 100 ms). `false` turns it off.
   */
  followReleases?: false | { feed?: ReleaseFeed; retryMs?: number };
  /** Told when this host switched to a release another process activated, or could not load it. */
  onReleaseSync?: (report: ReleaseSyncReport | PrefetchReport) => void;
  /**
   * The server `sluice dev` runs: a changed module uploaded under a version already stored
   * is kept as the dev revision `<version>+dev.<sha256 prefix>` instead of being refused
   * (VERSION_CONFLICT), so an author's edits go live without version bumps. Any other
   * registry refuses dev revisions. Default false.
   */
  devRevisions?: boolean;
}

/** What a registry runs on, and whether it owns (and so closes) each part. */
export interface OpenedStores {
  /** The absolute data folder. */
  dataDir: string;
  store: RegistryStore;
  artifacts: Artifacts;
  host: Host;
  ownsHost: boolean;
  /** The operation records when opened here on SQLite (PostgreSQL's close with `shared`). */
  ownedRecords: OperationStore | undefined;
  /** The shared PostgreSQL stores when opened with `database` (gateway keys, quarantine, notifications). */
  shared: PostgresStores | undefined;
  /** Whether the host recovers operations a dead host left running (it has records of its own). */
  recovers: boolean;
  maxModuleBytes: number;
  /** Whether changed modules under a stored version become dev revisions (RegistryOptions.devRevisions). */
  devRevisions: boolean;
  /** Stops following other hosts' quarantine decisions (PostgreSQL only). */
  stopWatching?: () => Promise<void>;
}

/** Opens (creating when needed) the data folder and every store; closes what it opened when a step fails. */
export async function openStores(options: RegistryOptions): Promise<OpenedStores> {
  const maxModuleBytes = Math.min(options.maxModuleBytes ?? DEFAULT_LIMITS.moduleBytes, HOST_MAX_LIMITS.moduleBytes);
  if (!(maxModuleBytes > 0)) throw new SluiceError("CONFIG_INVALID", `maxModuleBytes must be positive, got ${options.maxModuleBytes}`);
  const dataDir = path.resolve(options.dataDir);
  try {
    ensurePrivateDir(dataDir);
  } catch (err) {
    throw new SluiceError("STORE_UNAVAILABLE", `cannot create the data directory ${dataDir}: ${(err as Error).message}`, { dataDir });
  }
  // The deployment's secret: the records' digests, and the key sealing their content.
  const key = loadDigestKey(dataDir, options.digestSecret);
  let shared: PostgresStores | undefined;
  if (options.database !== undefined) {
    const { openPostgresStores } = await import("./postgres-stores.js");
    shared = await openPostgresStores(options.database, {
      applicationName: "sluice", key,
      ...(options.resultRetentionMs !== undefined ? { resultRetentionMs: options.resultRetentionMs } : {}),
      ...(options.payloadRetentionMs !== undefined ? { payloadRetentionMs: options.payloadRetentionMs } : {}),
    });
  }
  const store = shared?.registry ?? openSqliteStore(path.join(dataDir, "sluice.db"), options.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {});
  const artifacts: Artifacts = shared?.artifacts ?? new ArtifactStore(path.join(dataDir, "artifacts"));
  // Operation records and audit live in the same database (their own tables), so a
  // restarted server can resume what a crash interrupted.
  const records = options.host ? undefined : shared?.records ?? openSqliteRecords(path.join(dataDir, "sluice.db"), { key, ...(options.resultRetentionMs !== undefined ? { resultRetentionMs: options.resultRetentionMs } : {}) });
  const host = options.host ?? createHost({ kvPath: shared?.kvLocation ?? path.join(dataDir, "kv.sqlite"), ...(shared?.payloads ? { payloads: shared.payloads } : {}), ...(shared ? { quarantineStore: shared.quarantine } : {}), records, digestSecret: key, ...options.hostOptions });
  // The PostgreSQL stores share one pool: closed together by shared.close().
  const opened: OpenedStores = { dataDir, store, artifacts, host, ownsHost: options.host === undefined, ownedRecords: shared ? undefined : records, shared, recovers: records !== undefined, maxModuleBytes, devRevisions: options.devRevisions === true };
  if (shared) {
    // Every host's quarantine decisions and lifts reach this one: at once on a notice, and now for those made before it started.
    const { watchQuarantine } = await import("../reliability/postgres-quarantine-store.js");
    const refresh = () => { host.quarantine.refresh().catch(() => { /* the next notice or reconnect refreshes again */ }); };
    try {
      opened.stopWatching = await watchQuarantine(shared.db, refresh);
      await host.quarantine.refresh();
    } catch (err) {
      await closeStores(opened);
      throw err;
    }
  }
  return opened;
}

/** Closes the stores, and the host when it was created here. */
export async function closeStores(s: OpenedStores): Promise<void> {
  await s.stopWatching?.();
  await s.store.close();
  if (s.ownsHost) await s.host.close();
  await s.ownedRecords?.close();
  await s.shared?.close();
}
