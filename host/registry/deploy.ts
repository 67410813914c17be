/**
 * A deploy: upload, bind (hook.yaml's `bindings`), publish and (unless `activate: false`)
 * activate as one step. The manifest, the module and every binding with its config are
 * checked first, then one transaction stores the version (or finds it identical), writes
 * the bindings (replacing draft bindings of the same id, which keep their place), freezes
 * the draft as a revision and activates it. When anything fails, nothing is stored.
 */
import { SluiceError } from "../errors/sluice-error.js";
import type { Draft } from "./draft.js";
import { checkManifestBindings } from "./manifest-bindings.js";
import type { PluginCatalogue, UploadInput } from "./plugin-catalogue.js";
import type { PluginRecord, ReleaseRecord } from "./records.js";
import type { Releases } from "./releases.js";
import type { RegistryStore } from "./store.js";

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

export async function deploy(
  parts: { store: RegistryStore; catalogue: PluginCatalogue; draft: Draft; releases: Releases },
  input: UploadInput & { activate?: boolean; note?: string },
): Promise<DeployResult> {
  const { store, catalogue, draft, releases } = parts;
  const manifest = await catalogue.manifestOf(input);
  if (!manifest.bindings?.length) throw new SluiceError("BINDING_INVALID", `hook.yaml of ${manifest.id}@${manifest.version} has no bindings section, so there is nothing to deploy; add one (or upload, bind and publish step by step)`, { field: "bindings", source: "hook.yaml" });
  const record = await catalogue.checkedVersion(manifest, input.wasm, input.source);
  const specs = checkManifestBindings(manifest, record);
  return catalogue.withArtifact(record, input.wasm, () => store.transaction(async (tx) => {
    const created = (await tx.insertPlugin(record)) === "inserted";
    if (created) catalogue.storedHere.add(`${record.id}@${record.version}`);
    const bindings: DeployResult["bindings"] = [];
    for (const spec of specs) {
      const exists = (await tx.getBinding(spec.id)) !== undefined;
      await (exists ? tx.updateBinding(spec) : tx.insertBinding(spec));
      bindings.push({ id: spec.id, point: spec.point, created: !exists });
    }
    const { release, same } = await draft.freeze(tx, input.note);
    let activated = false;
    if (input.activate !== false && (await tx.activeRevision()) !== release.revision) {
      await releases.activateIn(tx, release);
      activated = true;
    }
    const stored = created ? record : (await tx.getPlugin(record.id, record.version))!;
    return { plugin: stored, uploaded: created, bindings, release, created: !same, activated, active_revision: await tx.activeRevision() };
  }));
}
