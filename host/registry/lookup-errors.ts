/**
 * The registry's lookup errors, built in one place: a plugin, binding or release that is
 * not there, and a binding id already taken. They name what is missing or taken and
 * nothing else: how a caller lists or updates what exists depends on the caller (the API
 * adds its route, the CLI its command), so no hint of either is written here.
 */
import { SluiceError } from "../errors/sluice-error.js";

const lookups = new WeakSet<Error>();
const lookup = (err: SluiceError): SluiceError => { lookups.add(err); return err; };

/**
 * Whether `err` was built here: a lookup of something a caller can list (or, for
 * BINDING_CONFLICT, update), so the caller may add how. Other errors with the same codes
 * (a binding missing from a recorded operation's release) are not.
 */
export function isLookupError(err: unknown): err is SluiceError {
  return err instanceof Error && lookups.has(err);
}

/** PLUGIN_NOT_FOUND for `id@version`, or for every version of `id` when no version is given. */
export function pluginNotFound(id: string, version?: string): SluiceError {
  return lookup(version === undefined
    ? new SluiceError("PLUGIN_NOT_FOUND", `no plugin ${id}`, { id })
    : new SluiceError("PLUGIN_NOT_FOUND", `no plugin ${id}@${version}`, { id, version }));
}

/** BINDING_NOT_FOUND; `where` says where it was looked for ("in the draft or the active release"). */
export function bindingNotFound(id: string, where?: string): SluiceError {
  return lookup(new SluiceError("BINDING_NOT_FOUND", `no binding ${id}${where ? ` ${where}` : ""}`, { binding: id }));
}

/** RELEASE_NOT_FOUND for a revision. */
export function releaseNotFound(revision: number): SluiceError {
  return lookup(new SluiceError("RELEASE_NOT_FOUND", `no release ${revision}`, { revision }));
}

/** RELEASE_NOT_FOUND for a rollback with nothing before the active revision. */
export function noEarlierRelease(): SluiceError {
  return lookup(new SluiceError("RELEASE_NOT_FOUND", "there is no earlier active revision to roll back to; name the revision to activate", {}));
}

/** BINDING_CONFLICT: a new binding with an id the draft already has. */
export function bindingConflict(id: string): SluiceError {
  return lookup(new SluiceError("BINDING_CONFLICT", `binding ${id} already exists; update it or pick another id`, { binding: id }));
}
