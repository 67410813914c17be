/** The plugin registry: manifests, content-addressed artifacts, bindings and releases on SQLite. */
export { Registry, type RegistryOptions, type UploadInput, type ControlChange } from "./registry.js";
export { parseManifest, validateManifest, manifestGrants, manifestLimits, MANIFEST_SCHEMA, MANIFEST_MAX_BYTES, type Manifest, type PointGrant, type ManifestLimits, type FailurePolicy } from "./manifest.js";
export { pluginInput } from "./plugin-input.js";
export { BINDING_INPUT_SCHEMA } from "./binding-input.js";
export { SDK_INTERFACE_VERSION, DEPRECATIONS, type ExtensionList, type ExtensionItem } from "./extensions.js";
export type { DryRunInput, DryRunResult } from "./dry-run.js";
export type { RegistryStore, RegistryTx, NewRelease } from "./store.js";
export { openSqliteStore } from "./sqlite-store.js";
export { REGISTRY_MIGRATIONS } from "./migrations.js";
export type { Migration, MigrationSet } from "../storage/migrations.js";
export type * from "./records.js";
