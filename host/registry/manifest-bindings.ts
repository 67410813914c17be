/**
 * hook.yaml's `bindings` section: where a plugin's author wants this version bound. It is
 * deployment intent, not part of the version: the stored (locked) manifest leaves it out
 * ({@link lockedManifest}), so changing only a binding deploys without a new version, and
 * the bindings live beside the version as draft bindings and in releases. They are checked
 * by the same code as a binding written through the API, before anything is stored
 * (`sluice test`, `sluice deploy`, POST /api/v1/deploy).
 */
import { SluiceError, isSluiceError } from "../errors/sluice-error.js";
import { resolveBindingInput } from "./binding-input.js";
import type { Manifest, ManifestBinding } from "./manifest.js";
import type { BindingSpec, PluginRecord } from "./records.js";

/** The manifest as a plugin version is stored and compared: without its bindings. */
export function lockedManifest(manifest: Manifest): Manifest {
  const { bindings: _intent, ...locked } = manifest;
  return locked;
}

/** The binding id hook.yaml implies when it names none: `<plugin>-<point with dashes>`. */
export function defaultBindingId(pluginId: string, point: string): string {
  return `${pluginId}-${point.replace(/\./g, "-")}`;
}

/** The bindings as binding inputs of `id@version` (hook_ref and id filled in). */
export function manifestBindingInputs(manifest: Manifest): (ManifestBinding & { id: string; hook_ref: string })[] {
  const hook_ref = `${manifest.id}@${manifest.version}`;
  return (manifest.bindings ?? []).map((b) => ({ ...b, id: b.id ?? defaultBindingId(manifest.id, b.point), hook_ref }));
}

/**
 * Checks every binding of hook.yaml against the plugin version it binds (its points and
 * config_schema), which need not be stored yet. Errors keep their code and name the
 * binding; details.source is "hook.yaml" (the CLI's hint points there, not at --config).
 */
export function checkManifestBindings(manifest: Manifest, record?: PluginRecord): BindingSpec[] {
  const self: PluginRecord = record ?? { id: manifest.id, version: manifest.version, sha256: "", size: 0, manifest, created_at: "" };
  const find = (id: string, version: string) => (id === self.id && version === self.version ? self : undefined);
  return manifestBindingInputs(manifest).map((input, i) => {
    try {
      return resolveBindingInput(input, find);
    } catch (err) {
      if (!isSluiceError(err)) throw err;
      throw new SluiceError(err.code, `hook.yaml: bindings[${i}] (${input.id}): ${err.message}`, { ...err.details, source: "hook.yaml", binding: input.id, index: i });
    }
  });
}
