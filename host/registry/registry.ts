/**
 * The registry service: the management flow (README.md, "Writing a hook") (upload, try on samples, bind,
 * publish, activate, roll back) over a store, an artifact folder and a live {@link Host}.
 * The HTTP API and the CLI are thin layers over this class.
 */
import path from "node:path";
import { createHost, type Host, type HostOptions } from "../host.js";
import { SluiceError } from "../errors/sluice-error.js";
import { ensurePrivateDir } from "../storage/private-files.js";
import type { AfterOrderMode } from "../pipeline/bindings.js";
import { canonicalJson } from "../pipeline/canonical-json.js";
import type { GuestPlugin } from "../engine/hooks.js";
import type { ReleaseInput } from "../pipeline/release.js";
import { DEFAULT_LIMITS, HOST_MAX_LIMITS } from "../sandbox/limits.js";
import { ArtifactStore, type Artifacts } from "./artifacts.js";
import type { PostgresStores } from "./postgres-stores.js";
import { postgresReleaseFeed } from "./postgres-release-feed.js";
import { resolveBindingInput, toHostBinding } from "./binding-input.js";
import { dryRun, type DryRunInput, type DryRunResult } from "./dry-run.js";
import { replayOperation, type ReplayResult } from "./replay.js";
import { extensionList, type ExtensionList } from "./extensions.js";
import { checkBindingId, checkPluginId, checkRevision, checkVersion, parseHookRef } from "./ids.js";
import { manifestGrants, manifestLimits, parseManifest, validateManifest, type Manifest } from "./manifest.js";
import { checkManifestBindings, lockedManifest } from "./manifest-bindings.js";
import type { ActivationReason, ActivationRecord, BindingRecord, BindingSpec, PluginRecord, ReleaseBinding, ReleaseRecord } from "./records.js";
import { rollbackTarget } from "./rollback.js";
import { loadDigestKey } from "./digest-key.js";
import { openSqliteStore } from "./sqlite-store.js";
import { openSqliteRecords } from "../records/sqlite-store.js";
import type { OperationStore } from "../records/store.js";
import type { RegistryStore, RegistryTx } from "./store.js";
import { releaseFeed, SQLITE_FEED_INTERVAL_MS, type ReleaseFeed } from "./release-feed.js";
import { warmLoader } from "../sandbox/main/load-module.js";
import { startPrefetch, type PrefetchReport } from "./plugin-prefetch.js";
import { ReleaseWatcher, type ReleaseSyncReport, type ReleaseSyncStatus } from "./release-watcher.js";

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
}

/** What `GET /api/v1/status` says about releases: the database's active revision and what this process serves. */
export interface ReleaseStatus extends ReleaseSyncStatus {
  active_revision: number;
  /** When this process switched to serving_revision (RFC 3339); null before its first release. */
  serving_since: string | null;
}

/** How often a following host looks for plugin versions stored by another host, to compile them ahead of their activation. */
const PREFETCH_INTERVAL_MS = 500;

/** What {@link Registry.deploy} did: the version (uploaded: newly stored), each binding (created or replaced), the revision. */
export interface DeployResult {
  plugin: PluginRecord;
  uploaded: boolean;
  bindings: { id: string; point: string; created: boolean }[];
  release: ReleaseRecord;
  /** False: the draft was identical to the latest revision, so none was created. */
  created: boolean;
  activated: boolean;
  active_revision: number;
}

/** A plugin to upload: its manifest and its module. */
export interface UploadInput {
  /** The text of hook.yaml, or an already parsed manifest. */
  manifest: string | unknown;
  wasm: Uint8Array;
}

/** What toggling or reordering changed: the draft, and the new active revision when the active release held the binding. */
export interface ControlChange {
  revision: number;
  /** Set when the change created and activated a new revision. */
  created?: number;
}

function specOf(b: BindingRecord | ReleaseBinding): BindingSpec {
  return {
    id: b.id, hook_ref: b.hook_ref, point: b.point, match: b.match, priority: b.priority, timeout_ms: b.timeout_ms,
    failure_policy: b.failure_policy, observe_only: b.observe_only, config: b.config, enabled: b.enabled, mandatory: b.mandatory,
    ...(b.extension !== undefined ? { extension: b.extension } : {}),
  };
}

function releaseInput(r: ReleaseRecord): ReleaseInput {
  return { revision: r.revision, orderMode: r.order_mode, bindings: [...r.bindings].sort((a, b) => a.position - b.position).map(toHostBinding) };
}

/** The plugin a binding input names, looked up ahead (the input's own checks report a malformed ref). */
async function pluginsOf(tx: RegistryTx, input: unknown): Promise<(id: string, version: string) => PluginRecord | undefined> {
  const ref = (input as { hook_ref?: unknown } | null)?.hook_ref;
  let found: PluginRecord | undefined;
  let parsed: { id: string; version: string } | undefined;
  if (typeof ref === "string") {
    try { parsed = parseHookRef(ref); } catch { /* resolveBindingInput explains it */ }
  }
  // Outside the catch: a store that fails the read is STORE_UNAVAILABLE, not a plugin that is not there.
  if (parsed) found = await tx.getPlugin(parsed.id, parsed.version);
  return (id, version) => (found && found.id === id && found.version === version ? found : undefined);
}

async function activeRelease(tx: RegistryTx): Promise<ReleaseRecord | undefined> {
  const revision = await tx.activeRevision();
  return revision ? tx.getRelease(revision) : undefined;
}

/** Named ids first, in the given order; the rest keep their relative order after them. */
function reordered<T extends { id: string; position: number }>(items: readonly T[], ids: readonly string[]): T[] {
  const sorted = [...items].sort((a, b) => a.position - b.position);
  const named = ids.map((id) => sorted.find((b) => b.id === id)).filter((b): b is T => b !== undefined);
  const rest = sorted.filter((b) => !ids.includes(b.id));
  return [...named, ...rest].map((b, position) => ({ ...b, position }));
}

/**
 * The plugin registry: manifests and content-addressed modules, bindings and releases on SQLite, driving a host (upload, bind, publish, activate, roll back).
 * @example
 * const registry = await Registry.open({ dataDir: ".sluice/data" });
 * await registry.upload({ manifest: yamlText, wasm });
 * await registry.createBinding({ id: "orders-limit", hook_ref: "order-search-limit@1.0.0", point: "tool.before", config: { max_limit: 100 } });
 * const release = await registry.publish({ activate: true });
 * await registry.host.tool(ctx, call, execute); // runs the hook, context.published_revision === release.revision
 */
export class Registry {
  readonly host: Host;
  readonly maxModuleBytes: number;
  /** The absolute data folder (the API keeps it out of error responses, and writes its token file there). */
  dataDir = "";
  private readonly loaded = new Map<string, Promise<GuestPlugin>>();
  /** Versions uploaded through this process (the prefetch log line is about other hosts' uploads). */
  private readonly storedHere = new Set<string>();
  private ownedRecords: OperationStore | undefined;
  /** The shared PostgreSQL stores when opened with `database` (gateway keys, quarantine, notifications). */
  shared: PostgresStores | undefined;
  private stopWatching: (() => Promise<void>) | undefined;
  private watcher: ReleaseWatcher | undefined;
  private releaseLoader: (() => void) | undefined;
  private stopPrefetch: (() => Promise<void>) | undefined;

  private constructor(
    readonly store: RegistryStore,
    private readonly artifacts: Artifacts,
    host: Host,
    private readonly ownsHost: boolean,
    maxModuleBytes: number,
  ) {
    this.host = host;
    this.maxModuleBytes = maxModuleBytes;
  }

  /** Opens (creating when needed) the data directory and puts the active release back into the host. */
  static async open(options: RegistryOptions): Promise<Registry> {
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
    const registry = new Registry(store, artifacts, host, options.host === undefined, maxModuleBytes);
    // The PostgreSQL stores share one pool: closed together by shared.close().
    registry.ownedRecords = shared ? undefined : records;
    registry.shared = shared;
    if (shared) {
      // Every host's quarantine decisions and lifts reach this one: at once on a notice, and now for those made before it started.
      const { watchQuarantine } = await import("../reliability/postgres-quarantine-store.js");
      const refresh = () => { registry.host.quarantine.refresh().catch(() => { /* the next notice or reconnect refreshes again */ }); };
      try {
        registry.stopWatching = await watchQuarantine(shared.db, refresh);
        await registry.host.quarantine.refresh();
      } catch (err) {
        await registry.close();
        throw err;
      }
    }
    registry.dataDir = dataDir;
    // Operations a dead host left running have an unknown outcome, and are never retried
    // automatically; those of live hosts sharing the database are left alone.
    try {
      // Inside the try: a record this host cannot read (RECORD_UNREADABLE) must not leave the stores and workers open.
      if (records) await host.recover();
      await registry.restore();
      if (options.followReleases !== false) {
        const follow = options.followReleases ?? {};
        const db = shared?.db;
        await registry.follow(db && !follow.feed ? { ...follow, feed: postgresReleaseFeed(db, () => store.activeRevision()) } : follow, options.onReleaseSync);
      }
    } catch (err) {
      await registry.close();
      throw err;
    }
    return registry;
  }

  private async follow(options: { feed?: ReleaseFeed; retryMs?: number }, onReport?: (report: ReleaseSyncReport | PrefetchReport) => void): Promise<void> {
    const readActive = () => this.store.activeRevision();
    // A new plugin version must compile within the second an activation may take to reach
    // this host: the loader is warmed now and kept, not started cold on that clock.
    this.releaseLoader = await warmLoader();
    this.stopPrefetch = await startPrefetch({ list: () => this.store.listPlugins(), load: (record) => this.loadPlugin(record), intervalMs: PREFETCH_INTERVAL_MS, storedHere: (ref) => this.storedHere.has(ref), ...(onReport ? { onReport } : {}) });
    this.watcher = await ReleaseWatcher.start({
      feed: options.feed ?? releaseFeed({ readActive, intervalMs: SQLITE_FEED_INTERVAL_MS }),
      current: () => this.host.release,
      prepare: async (revision) => {
        const release = await this.getRelease(revision);
        await this.ensureLoaded(release);
        return () => { this.host.activate(releaseInput(release)); };
      },
      readActive,
      ...(onReport ? { onReport } : {}),
      ...(options.retryMs !== undefined ? { retryMs: options.retryMs } : {}),
    });
  }

  /** The active revision in the database beside the one this process serves (and why it does not serve the active one, if it cannot). */
  async releaseStatus(): Promise<ReleaseStatus> {
    const active = await this.store.activeRevision();
    const sync = this.watcher?.status() ?? { serving_revision: this.host.release.revision, loading_revision: null, error: null };
    const since = this.host.releaseSince;
    return { active_revision: active, ...sync, serving_since: since === null ? null : new Date(since).toISOString() };
  }

  private async restore(): Promise<void> {
    const revision = await this.store.activeRevision();
    if (revision === 0) return;
    const release = (await this.store.getRelease(revision))!;
    await this.ensureLoaded(release);
    this.host.activate(releaseInput(release));
  }

  // ---- plugins ----

  /**
   * The checks an upload and a deploy share: the module's size, the sandbox's load (module
   * checks and compilation) and the ABI the manifest names; then the version's record,
   * locked without hook.yaml's bindings (manifest-bindings.ts), so a bindings-only change
   * is no new version.
   */
  private async checkedVersion(manifest: Manifest, wasm: Uint8Array): Promise<PluginRecord> {
    if (wasm.byteLength > this.maxModuleBytes) {
      throw new SluiceError("MODULE_TOO_LARGE", `module is ${wasm.byteLength} bytes; this registry accepts at most ${this.maxModuleBytes} (an operator can raise it to 16 MiB: sluice serve --max-module-mb 16)`, { size: wasm.byteLength, limit: this.maxModuleBytes });
    }
    const module = await this.host.sandbox.load(wasm, this.loadOptions(manifest));
    if (`${module.abi.major}.${module.abi.minor}` !== manifest.abi) {
      throw new SluiceError("MANIFEST_INVALID", `hook.yaml says abi ${manifest.abi}, but the module declares ABI ${module.abi.major}.${module.abi.minor}; rebuild it or fix the manifest`, { field: "abi" });
    }
    return { id: manifest.id, version: manifest.version, sha256: module.sha256, size: wasm.byteLength, manifest: lockedManifest(manifest), created_at: new Date().toISOString() };
  }

  /**
   * Validates a plugin (manifest schema, module checks, size) and stores it under its
   * sha256. Uploading the identical version again is a no-op (`created: false`); the same
   * id@version with other bytes is VERSION_CONFLICT. Nothing is stored when a check fails.
   */
  async upload(input: UploadInput): Promise<{ plugin: PluginRecord; created: boolean }> {
    const manifest: Manifest = typeof input.manifest === "string" ? parseManifest(input.manifest) : validateManifest(input.manifest);
    const wasm = input.wasm;
    const record = await this.checkedVersion(manifest, wasm);
    // A version already stored needs no artifact write: insertPlugin answers "exists" or
    // VERSION_CONFLICT. Under a race the artifact may be written for a refused insert; it is
    // content-addressed and unreferenced, so it is harmless.
    const written = !(await this.store.getPlugin(record.id, record.version)) && !(await this.artifacts.has(record.sha256));
    if (written) await this.artifacts.put(wasm, record.sha256);
    let created: boolean;
    try {
      created = (await this.store.insertPlugin(record)) === "inserted";
      if (created) this.storedHere.add(`${record.id}@${record.version}`);
    } catch (err) {
      // No record, no artifact: an upload the database refused leaves nothing behind.
      if (written && !(await this.store.listPlugins()).some((p) => p.sha256 === record.sha256)) await this.artifacts.remove(record.sha256);
      throw err;
    }
    return { plugin: created ? record : (await this.store.getPlugin(record.id, record.version))!, created };
  }

  /**
   * Upload, bind (hook.yaml's `bindings`), publish and (unless `activate: false`) activate
   * as one step: the manifest, the module and every binding with its config are checked
   * first, then one transaction stores the version (or finds it identical), writes the
   * bindings (replacing draft bindings of the same id, which keep their place), freezes the
   * draft as a revision and activates it. When anything fails, nothing is stored.
   */
  async deploy(input: UploadInput & { activate?: boolean; note?: string }): Promise<DeployResult> {
    const manifest: Manifest = typeof input.manifest === "string" ? parseManifest(input.manifest) : validateManifest(input.manifest);
    if (!manifest.bindings?.length) throw new SluiceError("BINDING_INVALID", `hook.yaml of ${manifest.id}@${manifest.version} has no bindings section, so there is nothing to deploy; add one (or upload, bind and publish step by step)`, { field: "bindings", source: "hook.yaml" });
    const wasm = input.wasm;
    const record = await this.checkedVersion(manifest, wasm);
    const specs = checkManifestBindings(manifest, record);
    const written = !(await this.artifacts.has(record.sha256));
    if (written) await this.artifacts.put(wasm, record.sha256);
    try {
      const done = await this.store.transaction(async (tx) => {
        const created = (await tx.insertPlugin(record)) === "inserted";
        if (created) this.storedHere.add(`${record.id}@${record.version}`);
        const bindings: DeployResult["bindings"] = [];
        for (const spec of specs) {
          const exists = (await tx.getBinding(spec.id)) !== undefined;
          await (exists ? tx.updateBinding(spec) : tx.insertBinding(spec));
          bindings.push({ id: spec.id, point: spec.point, created: !exists });
        }
        const { release, same } = await this.freezeDraft(tx, input.note);
        let activated = false;
        if (input.activate !== false && (await tx.activeRevision()) !== release.revision) {
          // Loaded inside the transaction: an activation that cannot load stores nothing.
          await Promise.all([...new Set(release.bindings.map((b) => b.hook_ref))].map(async (ref) => {
            const { id, version } = parseHookRef(ref);
            const plugin = await tx.getPlugin(id, version);
            if (!plugin) throw new SluiceError("PLUGIN_NOT_FOUND", `no plugin ${ref}; list them with GET /api/v1/plugins`, { id, version });
            return this.loadPlugin(plugin);
          }));
          await tx.activate(release.revision, "activate", () => { this.host.activate(releaseInput(release)); });
          activated = true;
        }
        const stored = created ? record : (await tx.getPlugin(record.id, record.version))!;
        return { plugin: stored, uploaded: created, bindings, release, created: !same, activated, active_revision: await tx.activeRevision() };
      });
      return done;
    } catch (err) {
      if (written && !(await this.store.listPlugins()).some((p) => p.sha256 === record.sha256)) await this.artifacts.remove(record.sha256);
      throw err;
    }
  }

  private loadOptions(manifest: Manifest) {
    return { capabilities: manifest.capabilities, limits: { ...manifestLimits(manifest), moduleBytes: this.maxModuleBytes } };
  }

  /** PLUGIN_NOT_FOUND when absent; ID_INVALID when the id or version is malformed. */
  async getPlugin(id: string, version: string): Promise<PluginRecord> {
    const record = await this.store.getPlugin(checkPluginId(id), checkVersion(version));
    if (!record) throw new SluiceError("PLUGIN_NOT_FOUND", `no plugin ${id}@${version}; list them with GET /api/v1/plugins`, { id, version });
    return record;
  }

  /** Every stored version, or the versions of one plugin (PLUGIN_NOT_FOUND when it has none). */
  async listPlugins(id?: string): Promise<PluginRecord[]> {
    if (id === undefined) return this.store.listPlugins();
    const versions = await this.store.listPlugins(checkPluginId(id));
    if (versions.length === 0) throw new SluiceError("PLUGIN_NOT_FOUND", `no plugin ${id}; list them with GET /api/v1/plugins`, { id });
    return versions;
  }

  /** Runs a stored version once on a sample payload and config; stores nothing. */
  async test(id: string, version: string, input: DryRunInput): Promise<DryRunResult> {
    const record = await this.getPlugin(id, version);
    const plugin = await this.loadPlugin(record);
    return dryRun(this.host.sandbox, record, plugin, input);
  }

  /**
   * Runs a recorded operation's hook chain again (see replay.ts) with `target` in place of
   * its plugin: a local build (manifest text and module, loaded for this replay only) or
   * another stored version (`hook_ref`). Stores nothing; never calls the tool or model.
   */
  async replay(operationId: string, target: { hook_ref: string } | { manifest: string; wasm: Uint8Array }): Promise<ReplayResult> {
    let replacement: GuestPlugin;
    if ("hook_ref" in target) {
      const { id, version } = parseHookRef(target.hook_ref);
      replacement = await this.loadPlugin(await this.getPlugin(id, version));
    } else {
      const manifest = parseManifest(target.manifest);
      const module = await this.host.sandbox.load(target.wasm, this.loadOptions(manifest));
      replacement = { ref: `${manifest.id}@${manifest.version}`, id: manifest.id, version: manifest.version, module, grants: manifestGrants(manifest) };
    }
    return replayOperation({
      host: this.host,
      release: (revision) => this.getRelease(revision),
      plugin: async (ref) => { const { id, version } = parseHookRef(ref); return this.loadPlugin(await this.getPlugin(id, version)); },
    }, operationId, replacement);
  }

  private loadPlugin(record: PluginRecord): Promise<GuestPlugin> {
    const ref = `${record.id}@${record.version}`;
    let loaded = this.loaded.get(ref);
    if (!loaded) {
      loaded = this.artifacts.get(record.sha256).then((wasm) => this.host.loadPlugin({
        id: record.id, version: record.version, wasm, grants: manifestGrants(record.manifest), ...this.loadOptions(record.manifest),
      }));
      this.loaded.set(ref, loaded);
      loaded.catch(() => this.loaded.delete(ref));
    }
    return loaded;
  }

  private async ensureLoaded(release: ReleaseRecord): Promise<void> {
    const refs = [...new Set(release.bindings.map((b) => b.hook_ref))];
    await Promise.all(refs.map(async (ref) => {
      const { id, version } = parseHookRef(ref);
      return this.loadPlugin(await this.getPlugin(id, version));
    }));
  }

  // ---- bindings (the draft pipeline) ----

  listBindings(): Promise<BindingRecord[]> {
    return this.store.listBindings();
  }

  async getBinding(id: string): Promise<BindingRecord> {
    const b = await this.store.getBinding(checkBindingId(id));
    if (!b) throw new SluiceError("BINDING_NOT_FOUND", `no binding ${id}; list them with GET /api/v1/bindings`, { binding: id });
    return b;
  }

  /** Adds a binding at the end of the draft order; its config is checked against the plugin's schema. */
  async createBinding(input: unknown): Promise<BindingRecord> {
    return this.store.transaction(async (tx) => tx.insertBinding(resolveBindingInput(input, await pluginsOf(tx, input))));
  }

  /** Replaces a binding (keeping its place in the order). */
  async updateBinding(id: string, input: Record<string, unknown>): Promise<BindingRecord> {
    await this.getBinding(id);
    if (input.id !== undefined && input.id !== id) throw new SluiceError("BINDING_INVALID", `body id ${String(input.id)} differs from the binding ${id} in the path`, { field: "id" });
    const body = { ...input, id };
    return this.store.transaction(async (tx) => tx.updateBinding(resolveBindingInput(body, await pluginsOf(tx, body))));
  }

  async deleteBinding(id: string): Promise<void> {
    await this.store.deleteBinding(checkBindingId(id));
  }

  // ---- releases ----

  /**
   * Freezes the draft (bindings, code hashes, configs, order mode, order) as the next
   * revision; a draft identical to the latest revision creates nothing and returns it.
   */
  async publish(options: { order_mode?: AfterOrderMode; note?: string; activate?: boolean } = {}): Promise<ReleaseRecord> {
    return (await this.publishDraft(options)).release;
  }

  /** {@link publish}, saying whether a revision was created (false: nothing changed since the latest one). */
  async publishDraft(options: { order_mode?: AfterOrderMode; note?: string; activate?: boolean } = {}): Promise<{ release: ReleaseRecord; created: boolean }> {
    // One transaction from reading the draft to freezing it: a concurrent edit or publish
    // (in this process or another) lands before or after, never in between.
    const { release, same } = await this.store.transaction(async (tx) => {
      if (options.order_mode) await tx.setDraftOrderMode(options.order_mode);
      return this.freezeDraft(tx, options.note);
    });
    if (options.activate && (await this.activeRevision()) !== release.revision) await this.activate(release.revision);
    return { release, created: !same };
  }

  /** Inside `tx`: the draft as the next revision, or the latest one when the draft is identical to it (`same`). */
  private async freezeDraft(tx: RegistryTx, note: string | undefined): Promise<{ release: ReleaseRecord; same: boolean }> {
    const bindings = await tx.listBindings();
    const draft = {
      order_mode: await tx.draftOrderMode(),
      bindings: await Promise.all(bindings.map(async (b, position) => {
        const { id, version } = parseHookRef(b.hook_ref);
        const plugin = await tx.getPlugin(id, version);
        if (!plugin) throw new SluiceError("PLUGIN_NOT_FOUND", `no plugin ${id}@${version}; list them with GET /api/v1/plugins`, { id, version });
        return { ...specOf(b), position, registered_at: b.registered_at, code_sha256: plugin.sha256 };
      })),
    };
    const latest = (await tx.listReleases()).reduce<ReleaseRecord | undefined>((a, r) => (a === undefined || r.revision > a.revision ? r : a), undefined);
    const same = latest !== undefined && canonicalJson({ order_mode: latest.order_mode, bindings: latest.bindings }) === canonicalJson(draft);
    return { release: same ? latest : await tx.insertRelease({ ...draft, based_on: null, note: note ?? "" }), same };
  }

  listReleases(): Promise<ReleaseRecord[]> {
    return this.store.listReleases();
  }

  async getRelease(revision: number | string): Promise<ReleaseRecord> {
    const n = checkRevision(revision);
    const r = await this.store.getRelease(n);
    if (!r) throw new SluiceError("RELEASE_NOT_FOUND", `no release ${n}; list them with GET /api/v1/releases`, { revision: n });
    return r;
  }

  activeRevision(): Promise<number> {
    return this.store.activeRevision();
  }

  listActivations(): Promise<ActivationRecord[]> {
    return this.store.listActivations();
  }

  /** Makes `revision` the one new operations use; operations already running finish on theirs. */
  async activate(revision: number | string, reason: ActivationReason = "activate"): Promise<ActivationRecord> {
    const release = await this.getRelease(revision);
    await this.ensureLoaded(release);
    return this.store.activate(release.revision, reason, () => { this.host.activate(releaseInput(release)); });
  }

  /**
   * Activates `to`, or by default the revision that was active before the current one, and
   * resets the draft to that revision's bindings and order mode: the next publish starts
   * from what serves, so it cannot bring back the change the rollback undid.
   */
  async rollback(to?: number | string): Promise<ActivationRecord> {
    const target = to !== undefined ? checkRevision(to) : rollbackTarget(await this.store.listActivations());
    if (target === undefined) throw new SluiceError("RELEASE_NOT_FOUND", "there is no earlier active revision to roll back to; name one with --to <revision>", {});
    const activation = await this.activate(target, "rollback");
    const release = await this.getRelease(target);
    await this.store.transaction(async (tx) => {
      for (const b of await tx.listBindings()) await tx.deleteBinding(b.id);
      const ordered = [...release.bindings].sort((a, b) => a.position - b.position);
      for (const b of ordered) await tx.insertBinding(specOf(b));
      await tx.setDraftOrderMode(release.order_mode);
    });
    return activation;
  }

  // ---- the extension view (docs/api-and-gateway.md) ----

  async extensions(view: "active" | "draft" = "active"): Promise<ExtensionList> {
    const plugins = new Map((await this.store.listPlugins()).map((p) => [`${p.id}@${p.version}`, p]));
    const find = (ref: string) => plugins.get(ref);
    const revision = await this.store.activeRevision();
    if (view === "draft") return extensionList("draft", revision, await this.store.draftOrderMode(), await this.store.listBindings(), find);
    const release = revision ? await this.store.getRelease(revision) : undefined;
    return extensionList("active", revision, release?.order_mode ?? "staged", release?.bindings ?? [], find);
  }

  /**
   * Enables or disables a binding: in the draft, and, when the active release holds it, at
   * once, as a new revision derived from the active one (so the switch is a release like
   * any other, and rollback undoes it). A disabled binding keeps its place but is skipped.
   */
  setEnabled(id: string, enabled: boolean): Promise<ControlChange> {
    checkBindingId(id);
    return this.store.transaction(async (tx) => {
      const draft = await tx.getBinding(id);
      const active = await activeRelease(tx);
      const frozen = active?.bindings.find((b) => b.id === id);
      if (!draft && !frozen) throw new SluiceError("BINDING_NOT_FOUND", `no binding ${id} in the draft or the active release`, { binding: id });
      if (draft && draft.enabled !== enabled) await tx.updateBinding({ ...specOf(draft), enabled });
      if (!active || !frozen || frozen.enabled === enabled) return { revision: await tx.activeRevision() };
      return this.derive(tx, active, active.bindings.map((b) => (b.id === id ? { ...b, enabled } : b)), active.order_mode, enabled ? "enable" : "disable");
    });
  }

  /** Moves the named bindings to the front, in this order, in the draft and (as a new revision) in the active release. */
  async reorder(ids: readonly string[], orderMode?: AfterOrderMode): Promise<ControlChange> {
    ids.forEach(checkBindingId);
    if (new Set(ids).size !== ids.length) throw new SluiceError("BINDING_INVALID", "order lists a binding twice", { field: "order" });
    return this.store.transaction(async (tx) => {
      const draft = await tx.listBindings();
      const active = await activeRelease(tx);
      const known = new Set([...draft.map((b) => b.id), ...(active?.bindings.map((b) => b.id) ?? [])]);
      const missing = ids.find((id) => !known.has(id));
      if (missing !== undefined) throw new SluiceError("BINDING_NOT_FOUND", `no binding ${missing} in the draft or the active release`, { binding: missing });
      await tx.reorderBindings(ids.filter((id) => draft.some((b) => b.id === id)));
      if (orderMode) await tx.setDraftOrderMode(orderMode);
      if (!active) return { revision: 0 };
      const next = reordered(active.bindings, ids);
      const mode = orderMode ?? active.order_mode;
      const same = mode === active.order_mode && next.every((b, i) => b.id === [...active.bindings].sort((x, y) => x.position - y.position)[i]!.id);
      return same ? { revision: active.revision } : this.derive(tx, active, next, mode, "reorder");
    });
  }

  /** Inside a transaction: freezes `bindings` as a new revision based on `from` and activates it. */
  private async derive(tx: RegistryTx, from: ReleaseRecord, bindings: ReleaseBinding[], orderMode: AfterOrderMode, reason: ActivationReason): Promise<ControlChange> {
    const release = await tx.insertRelease({ order_mode: orderMode, bindings, based_on: from.revision, note: `${reason} (from revision ${from.revision})` });
    // The plugins are those of the active release, already loaded: the switch stays synchronous.
    await tx.activate(release.revision, reason, () => { this.host.activate(releaseInput(release)); });
    return { revision: release.revision, created: release.revision };
  }

  /** Closes the store, and the host when the registry created it. */
  async close(): Promise<void> {
    await this.stopWatching?.();
    await this.watcher?.close();
    await this.stopPrefetch?.();
    this.releaseLoader?.();
    await this.store.close();
    if (this.ownsHost) await this.host.close();
    await this.ownedRecords?.close();
    await this.shared?.close();
  }
}
