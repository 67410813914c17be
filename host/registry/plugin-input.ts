/**
 * A hook.yaml and its module as `host.loadPlugin` takes them, derived by the same rules the
 * registry uses on upload, so a service (or an adapter) that loads plugins without a
 * registry grants exactly what the manifest says, no more.
 */
import type { PluginInput } from "../host.js";
import { manifestGrants, manifestLimits, parseManifest, type Manifest } from "./manifest.js";

/**
 * The {@link PluginInput} of a plugin: id, version, per-point grants, capabilities and limits
 * from its manifest (the text of hook.yaml, validated here, or an already parsed one).
 *
 * @example
 * // The shipped plugins are in the package: node_modules/sluice/plugins/<name>/hook.yaml
 * // and node_modules/sluice/build/plugins/<name>.wasm (docs/service-owners.md).
 * const root = fileURLToPath(new URL("../../../", import.meta.resolve("sluice")));
 * const manifest = await readFile(path.join(root, "plugins/order-search-limit/hook.yaml"), "utf8");
 * await host.loadPlugin(pluginInput(manifest, await readFile(path.join(root, "build/plugins/order-search-limit.wasm"))));
 */
export function pluginInput(manifest: string | Manifest, wasm: Uint8Array): PluginInput {
  const m = typeof manifest === "string" ? parseManifest(manifest) : manifest;
  return { id: m.id, version: m.version, wasm, grants: manifestGrants(m), capabilities: m.capabilities, limits: manifestLimits(m) };
}
