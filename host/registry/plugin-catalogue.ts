/**
 * The plugin catalogue: stored versions (manifest and content-addressed module), their
 * checks on the way in, and each version compiled once into the host's sandbox.
 */
import type { Host } from "../host.js";
import { SluiceError } from "../errors/sluice-error.js";
import type { GuestPlugin } from "../engine/hooks.js";
import type { Artifacts } from "./artifacts.js";
import { dryRun, type DryRunInput, type DryRunResult } from "./dry-run.js";
import { checkPluginId, checkVersion, parseHookRef } from "./ids.js";
import { pluginNotFound } from "./lookup-errors.js";
import { manifestGrants, manifestLimits, parseManifest, validateManifest, type Manifest } from "./manifest.js";
import { lockedManifest } from "./manifest-bindings.js";
import type { PluginRecord, PluginSource, ReleaseRecord } from "./records.js";
import type { RegistryStore } from "./store.js";
import { sha256Hex } from "../sandbox/main/load-module.js";
import { canonicalJson } from "../pipeline/canonical-json.js";

/** A version's dev-revision suffix (semver build metadata): `1.0.0+dev.3f2a9c01b7de`. */
const DEV_REVISION = /\+dev\.[0-9a-z.-]*$/i;

/** A plugin to upload: its manifest and its module. */
export interface UploadInput {
  /** The text of hook.yaml, or an already parsed manifest. */
  manifest: string | unknown;
  wasm: Uint8Array;
  /** Where the version was built from (a Git repository and commit), kept with it. */
  source?: PluginSource;
}

export class PluginCatalogue {
  private readonly loaded = new Map<string, Promise<GuestPlugin>>();
  /** Versions uploaded through this process (the prefetch log line is about other hosts' uploads). */
  readonly storedHere = new Set<string>();

  constructor(private readonly store: RegistryStore, private readonly artifacts: Artifacts, private readonly host: Host, readonly maxModuleBytes: number, private readonly devRevisions = false) {}

  /** PLUGIN_NOT_FOUND when absent; ID_INVALID when the id or version is malformed. */
  async get(id: string, version: string): Promise<PluginRecord> {
    const record = await this.store.getPlugin(checkPluginId(id), checkVersion(version));
    if (!record) throw pluginNotFound(id, version);
    return record;
  }

  /** Every stored version, or the versions of one plugin (PLUGIN_NOT_FOUND when it has none). */
  async list(id?: string): Promise<PluginRecord[]> {
    if (id === undefined) return this.store.listPlugins();
    const versions = await this.store.listPlugins(checkPluginId(id));
    if (versions.length === 0) throw pluginNotFound(id);
    return versions;
  }

  /**
   * The manifest of an upload, parsed from its text or checked as given, under the version
   * it is stored as: on a dev registry, a module that differs from the one stored under its
   * version becomes the dev revision `<version>+dev.<first 12 hex of its sha256>` (the same
   * edit uploaded again is the same revision); elsewhere a dev revision is refused.
   */
  async manifestOf(input: UploadInput): Promise<Manifest> {
    const manifest = typeof input.manifest === "string" ? parseManifest(input.manifest) : validateManifest(input.manifest);
    if (!this.devRevisions) {
      if (DEV_REVISION.test(manifest.version)) throw new SluiceError("MANIFEST_INVALID", `hook.yaml: version ${manifest.version} is a dev revision, which only the server \`sluice dev\` runs accepts; deploy a release version`, { field: "version" });
      return manifest;
    }
    const sha256 = sha256Hex(input.wasm);
    const locked = canonicalJson(lockedManifest(manifest));
    const stored = await this.store.getPlugin(manifest.id, manifest.version);
    if (!stored || (stored.sha256 === sha256 && canonicalJson(stored.manifest) === locked)) return manifest;
    // Named by the module and the manifest together: either changing is a new revision.
    const revision = sha256Hex(new TextEncoder().encode(`${sha256}\n${locked}`)).slice(0, 12);
    return { ...manifest, version: `${manifest.version.replace(DEV_REVISION, "")}+dev.${revision}` };
  }

  /**
   * The checks an upload and a deploy share: the module's size, the sandbox's load (module
   * checks and compilation) and the ABI the manifest names; then the version's record,
   * locked without hook.yaml's bindings (manifest-bindings.ts), so a bindings-only change
   * is no new version.
   */
  async checkedVersion(manifest: Manifest, wasm: Uint8Array, source?: PluginSource): Promise<PluginRecord> {
    if (wasm.byteLength > this.maxModuleBytes) {
      throw new SluiceError("MODULE_TOO_LARGE", `module is ${wasm.byteLength} bytes; this registry accepts at most ${this.maxModuleBytes} (an operator can raise it to 16 MiB: sluice serve --max-module-mb 16)`, { size: wasm.byteLength, limit: this.maxModuleBytes });
    }
    const module = await this.host.sandbox.load(wasm, this.loadOptions(manifest));
    if (`${module.abi.major}.${module.abi.minor}` !== manifest.abi) {
      throw new SluiceError("MANIFEST_INVALID", `hook.yaml says abi ${manifest.abi}, but the module declares ABI ${module.abi.major}.${module.abi.minor}; rebuild it or fix the manifest`, { field: "abi" });
    }
    return { id: manifest.id, version: manifest.version, sha256: module.sha256, size: wasm.byteLength, manifest: lockedManifest(manifest), created_at: new Date().toISOString(), ...(source ? { source } : {}) };
  }

  /**
   * Runs `store` (which records `record`) with its module written to the artifacts first,
   * unless it is there already; when `store` fails and no stored version uses the module,
   * the module is removed again: a refused version leaves nothing behind.
   */
  async withArtifact<T>(record: PluginRecord, wasm: Uint8Array, store: () => Promise<T>, written?: boolean): Promise<T> {
    const write = written ?? !(await this.artifacts.has(record.sha256));
    if (write) await this.artifacts.put(wasm, record.sha256);
    try {
      return await store();
    } catch (err) {
      if (write && !(await this.store.listPlugins()).some((p) => p.sha256 === record.sha256)) await this.artifacts.remove(record.sha256);
      throw err;
    }
  }

  /**
   * Validates a plugin (manifest schema, module checks, size) and stores it under its
   * sha256. Uploading the identical version again is a no-op (`created: false`); the same
   * id@version with other bytes is VERSION_CONFLICT. Nothing is stored when a check fails.
   */
  async upload(input: UploadInput): Promise<{ plugin: PluginRecord; created: boolean }> {
    const record = await this.checkedVersion(await this.manifestOf(input), input.wasm, input.source);
    // A version already stored needs no artifact write: insertPlugin answers "exists" or
    // VERSION_CONFLICT. Under a race the artifact may be written for a refused insert; it is
    // content-addressed and unreferenced, so it is harmless.
    const write = !(await this.store.getPlugin(record.id, record.version)) && !(await this.artifacts.has(record.sha256));
    const created = await this.withArtifact(record, input.wasm, async () => (await this.store.insertPlugin(record)) === "inserted", write);
    if (created) this.storedHere.add(`${record.id}@${record.version}`);
    return { plugin: created ? record : (await this.store.getPlugin(record.id, record.version))!, created };
  }

  /** Runs a stored version once on a sample payload and config; stores nothing. */
  async test(id: string, version: string, input: DryRunInput): Promise<DryRunResult> {
    const record = await this.get(id, version);
    return dryRun(this.host.sandbox, record, await this.load(record), input);
  }

  /** A plugin built elsewhere (its manifest text and module), loaded for one use and never stored. */
  async transient(manifestText: string, wasm: Uint8Array): Promise<GuestPlugin> {
    const manifest = parseManifest(manifestText);
    const module = await this.host.sandbox.load(wasm, this.loadOptions(manifest));
    return { ref: `${manifest.id}@${manifest.version}`, id: manifest.id, version: manifest.version, module, grants: manifestGrants(manifest) };
  }

  /** A stored version compiled into the sandbox, once per version (a failed load is tried again next time). */
  load(record: PluginRecord): Promise<GuestPlugin> {
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

  /** The stored version `ref` (id@version), compiled. */
  async loadRef(ref: string): Promise<GuestPlugin> {
    const { id, version } = parseHookRef(ref);
    return this.load(await this.get(id, version));
  }

  /** Every plugin version a release binds, compiled. */
  async ensureLoaded(release: ReleaseRecord): Promise<void> {
    await Promise.all([...new Set(release.bindings.map((b) => b.hook_ref))].map((ref) => this.loadRef(ref)));
  }

  private loadOptions(manifest: Manifest) {
    return { capabilities: manifest.capabilities, limits: { ...manifestLimits(manifest), moduleBytes: this.maxModuleBytes } };
  }
}
