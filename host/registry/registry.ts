/**
 * The registry service: the management flow (README.md, "Writing a hook") (upload, try on
 * samples, bind, publish, activate, roll back) over a store, an artifact folder and a live
 * {@link Host}. The HTTP API and the CLI are thin layers over this class, and this class
 * is a thin layer over its parts: the plugin catalogue, the draft, the releases, the
 * release follower and the stores it opens.
 */
import type { Host } from "../host.js";
import type { AfterOrderMode } from "../pipeline/bindings.js";
import { deploy, type DeployResult } from "./deploy.js";
import { Draft } from "./draft.js";
import type { DryRunInput, DryRunResult } from "./dry-run.js";
import type { ExtensionList } from "./extensions.js";
import { closeStores, openStores, type OpenedStores, type RegistryOptions } from "./open-stores.js";
import { PluginCatalogue, type UploadInput } from "./plugin-catalogue.js";
import { postgresReleaseFeed } from "./postgres-release-feed.js";
import type { PostgresStores } from "./postgres-stores.js";
import type { ActivationReason, ActivationRecord, BindingRecord, PluginRecord, ReleaseRecord } from "./records.js";
import { ReleaseFollower, releaseStatus, type ReleaseStatus } from "./release-follower.js";
import { Releases, type ControlChange } from "./releases.js";
import { replayOperation, type ReplayResult } from "./replay.js";
import type { RegistryStore } from "./store.js";

export type { RegistryOptions, UploadInput, DeployResult, ControlChange, ReleaseStatus };

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
  readonly store: RegistryStore;
  readonly maxModuleBytes: number;
  /** The absolute data folder (the API keeps it out of error responses, and writes its token file there). */
  readonly dataDir: string;
  /** The shared PostgreSQL stores when opened with `database` (gateway keys, quarantine, notifications). */
  readonly shared: PostgresStores | undefined;
  private readonly catalogue: PluginCatalogue;
  private readonly draft: Draft;
  private readonly releases: Releases;
  private follower: ReleaseFollower | undefined;

  private constructor(private readonly stores: OpenedStores) {
    ({ host: this.host, store: this.store, maxModuleBytes: this.maxModuleBytes, dataDir: this.dataDir, shared: this.shared } = stores);
    this.catalogue = new PluginCatalogue(this.store, stores.artifacts, this.host, this.maxModuleBytes, stores.devRevisions);
    this.draft = new Draft(this.store);
    this.releases = new Releases(this.store, this.host, this.catalogue, this.draft);
  }

  /** Opens (creating when needed) the data directory and puts the active release back into the host. */
  static async open(options: RegistryOptions): Promise<Registry> {
    const registry = new Registry(await openStores(options));
    try {
      // Operations a dead host left running have an unknown outcome, and are never retried
      // automatically; those of live hosts sharing the database are left alone. Inside the
      // try: a record this host cannot read must not leave the stores and workers open.
      if (registry.stores.recovers) await registry.host.recover();
      await registry.releases.restore();
      if (options.followReleases !== false) {
        const follow = options.followReleases ?? {};
        const db = registry.shared?.db;
        const feed = db && !follow.feed ? postgresReleaseFeed(db, () => registry.store.activeRevision()) : follow.feed;
        registry.follower = await ReleaseFollower.start({ store: registry.store, host: registry.host, catalogue: registry.catalogue, releases: registry.releases }, { ...follow, ...(feed ? { feed } : {}) }, options.onReleaseSync);
      }
    } catch (err) {
      await registry.close();
      throw err;
    }
    return registry;
  }

  /** The active revision in the database beside the one this process serves (and why not, when it cannot). */
  releaseStatus(): Promise<ReleaseStatus> { return releaseStatus(this.store, this.host, this.follower); }

  // The plugin catalogue (plugin-catalogue.ts).
  /** Stores a checked version; the identical version again is `created: false`, other bytes VERSION_CONFLICT. */
  upload(input: UploadInput): Promise<{ plugin: PluginRecord; created: boolean }> { return this.catalogue.upload(input); }
  /** Upload, bind hook.yaml's bindings, publish and activate in one transaction (deploy.ts). */
  deploy(input: UploadInput & { activate?: boolean; note?: string }): Promise<DeployResult> { return deploy({ store: this.store, catalogue: this.catalogue, draft: this.draft, releases: this.releases }, input); }
  /** PLUGIN_NOT_FOUND when absent; ID_INVALID when the id or version is malformed. */
  getPlugin(id: string, version: string): Promise<PluginRecord> { return this.catalogue.get(id, version); }
  /** Every stored version, or the versions of one plugin (PLUGIN_NOT_FOUND when it has none). */
  listPlugins(id?: string): Promise<PluginRecord[]> { return this.catalogue.list(id); }
  /** Runs a stored version once on a sample payload and config; stores nothing. */
  test(id: string, version: string, input: DryRunInput): Promise<DryRunResult> { return this.catalogue.test(id, version, input); }

  /**
   * Runs a recorded operation's hook chain again (see replay.ts) with `target` in place of
   * its plugin: a local build (manifest text and module, loaded for this replay only) or
   * another stored version (`hook_ref`). Stores nothing; never calls the tool or model.
   */
  async replay(operationId: string, target: { hook_ref: string } | { manifest: string; wasm: Uint8Array }): Promise<ReplayResult> {
    const replacement = "hook_ref" in target ? await this.catalogue.loadRef(target.hook_ref) : await this.catalogue.transient(target.manifest, target.wasm);
    return replayOperation({ host: this.host, release: (revision) => this.getRelease(revision), plugin: (ref) => this.catalogue.loadRef(ref) }, operationId, replacement);
  }

  // The draft pipeline (draft.ts).
  listBindings(): Promise<BindingRecord[]> { return this.draft.list(); }
  /** BINDING_NOT_FOUND when absent. */
  getBinding(id: string): Promise<BindingRecord> { return this.draft.get(id); }
  /** Adds a binding at the end of the draft order; its config is checked against the plugin's schema. */
  createBinding(input: unknown): Promise<BindingRecord> { return this.draft.create(input); }
  /** Replaces a binding (keeping its place in the order). */
  updateBinding(id: string, input: Record<string, unknown>): Promise<BindingRecord> { return this.draft.update(id, input); }
  deleteBinding(id: string): Promise<void> { return this.draft.delete(id); }

  // Releases (releases.ts).
  /**
   * Freezes the draft (bindings, code hashes, configs, order mode, order) as the next
   * revision; a draft identical to the latest revision creates nothing and returns it.
   */
  async publish(options: { order_mode?: AfterOrderMode; note?: string; activate?: boolean } = {}): Promise<ReleaseRecord> { return (await this.releases.publish(options)).release; }
  /** {@link publish}, saying whether a revision was created (false: nothing changed since the latest one). */
  publishDraft(options: { order_mode?: AfterOrderMode; note?: string; activate?: boolean } = {}): Promise<{ release: ReleaseRecord; created: boolean }> { return this.releases.publish(options); }
  listReleases(): Promise<ReleaseRecord[]> { return this.releases.list(); }
  /** RELEASE_NOT_FOUND when absent. */
  getRelease(revision: number | string): Promise<ReleaseRecord> { return this.releases.get(revision); }
  activeRevision(): Promise<number> { return this.store.activeRevision(); }
  listActivations(): Promise<ActivationRecord[]> { return this.store.listActivations(); }
  /** Makes `revision` the one new operations use; operations already running finish on theirs. */
  activate(revision: number | string, reason: ActivationReason = "activate"): Promise<ActivationRecord> { return this.releases.activate(revision, reason); }
  /** Activates `to`, or by default the revision that was active before the current one, and resets the draft to it. */
  rollback(to?: number | string): Promise<ActivationRecord> { return this.releases.rollback(to); }
  /** The active (or draft) pipeline as extensions (docs/api-and-gateway.md). */
  extensions(view: "active" | "draft" = "active"): Promise<ExtensionList> { return this.releases.extensions(view); }
  /** Enables or disables a binding in the draft and, as a new revision, in the active release. */
  setEnabled(id: string, enabled: boolean): Promise<ControlChange> { return this.releases.setEnabled(id, enabled); }
  /** Moves the named bindings to the front, in this order, in the draft and (as a new revision) in the active release. */
  reorder(ids: readonly string[], orderMode?: AfterOrderMode): Promise<ControlChange> { return this.releases.reorder(ids, orderMode); }

  /** Closes the store, and the host when the registry created it. */
  async close(): Promise<void> {
    await this.follower?.close();
    await closeStores(this.stores);
  }
}
