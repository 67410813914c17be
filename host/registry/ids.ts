/**
 * The shapes of names that reach the registry from outside. Every id, version and ref is
 * checked here, at the entry, so nothing downstream can be handed `../` or a NUL byte;
 * artifact files are named by sha256 only, so ids never become paths anyway.
 */
import { SluiceError } from "../errors/sluice-error.js";

export const PLUGIN_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** Binding ids may also use `.` and `_` (e.g. `orders.limit`), never `/` or `..`. */
export const BINDING_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,127}$/i;
/** Semantic Versioning 2.0.0, the official pattern (no leading zeros; optional pre-release and build). */
export const SEMVER_PATTERN = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;
export const SHA256_PATTERN = /^[0-9a-f]{64}$/;

function shown(value: unknown): string {
  return JSON.stringify(String(value).slice(0, 80));
}

/** Throws ID_INVALID unless `id` is a plugin id. */
export function checkPluginId(id: unknown): string {
  if (typeof id !== "string" || !PLUGIN_ID_PATTERN.test(id)) {
    throw new SluiceError("ID_INVALID", `plugin id ${shown(id)} is invalid: use 1-64 characters of a-z, 0-9 and "-", starting with a letter or digit`, { field: "id" });
  }
  return id;
}

/** Throws ID_INVALID unless `version` is semver (e.g. 1.2.0). */
export function checkVersion(version: unknown): string {
  if (typeof version !== "string" || version.length > 128 || !SEMVER_PATTERN.test(version)) {
    throw new SluiceError("ID_INVALID", `version ${shown(version)} is not semver: use MAJOR.MINOR.PATCH, e.g. 1.0.0`, { field: "version" });
  }
  return version;
}

/** Throws ID_INVALID unless `id` is a binding id. */
export function checkBindingId(id: unknown): string {
  if (typeof id !== "string" || !BINDING_ID_PATTERN.test(id) || id.includes("..")) {
    throw new SluiceError("ID_INVALID", `binding id ${shown(id)} is invalid: use 1-128 characters of letters, digits, ".", "_" and "-" (no "..")`, { field: "binding_id" });
  }
  return id;
}

/** Splits `id@version` into its checked parts. */
export function parseHookRef(ref: unknown): { id: string; version: string } {
  const text = typeof ref === "string" ? ref : "";
  const at = text.lastIndexOf("@");
  if (at <= 0) throw new SluiceError("ID_INVALID", `hook_ref ${shown(ref)} must be "<plugin-id>@<version>", e.g. order-search-limit@1.0.0`, { field: "hook_ref" });
  return { id: checkPluginId(text.slice(0, at)), version: checkVersion(text.slice(at + 1)) };
}

/** Throws ID_INVALID unless `revision` is a positive integer (as a number or a decimal string). */
export function checkRevision(revision: unknown): number {
  const n = typeof revision === "string" && /^\d{1,15}$/.test(revision) ? Number(revision) : revision;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1) {
    throw new SluiceError("ID_INVALID", `revision ${shown(revision)} must be a positive integer`, { field: "revision" });
  }
  return n;
}
