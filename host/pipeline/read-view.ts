import { parsePointer } from "./json-pointer.js";
import { withKeys } from "../objects/with-keys.js";

/**
 * The part of a payload a plugin was granted to read: only the subtrees under its read
 * prefixes, copied into a fresh object, without the `withheld` fields (a point's restricted
 * fields its grant does not name). A guest never receives a field it was not granted.
 */
export function readView(payload: Record<string, unknown>, read: readonly string[] | undefined, withheld?: readonly string[]): Record<string, unknown> {
  const granted = read === undefined ? payload : grantedPart(payload, read);
  if (!withheld) return granted;
  let view = granted;
  for (const pointer of withheld) view = without(view, parsePointer(pointer) ?? []);
  return view;
}

function grantedPart(payload: Record<string, unknown>, read: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pointer of read) {
    const path = parsePointer(pointer);
    if (!path) continue;
    if (path.length === 0) return payload;
    let src: unknown = payload;
    let dst: Record<string, unknown> = out;
    for (const [depth, key] of path.entries()) {
      if (typeof src !== "object" || src === null || !Object.prototype.hasOwnProperty.call(src, key)) break;
      src = (src as Record<string, unknown>)[key];
      if (depth === path.length - 1) { dst[key] = src; break; }
      const next = dst[key];
      dst = (dst[key] = typeof next === "object" && next !== null ? next : {}) as Record<string, unknown>;
    }
  }
  return out;
}

/** `obj` without the field at `path`, copying only the objects on the way to it; `obj` itself when the field is absent. */
function without(obj: Record<string, unknown>, path: readonly string[]): Record<string, unknown> {
  const [key, ...rest] = path;
  if (key === undefined || !Object.prototype.hasOwnProperty.call(obj, key)) return obj;
  if (rest.length === 0) {
    const { [key]: _dropped, ...kept } = obj;
    return kept;
  }
  const child = obj[key];
  if (typeof child !== "object" || child === null || Array.isArray(child)) return obj;
  const inner = without(child as Record<string, unknown>, rest);
  return inner === child ? obj : withKeys(obj, { [key]: inner });
}

/**
 * The restricted fields of a point (points.ts `restricted`) a grant does not name: a field is
 * named when a read prefix is the field itself or lies under it, never by a parent prefix.
 */
export function withheldFields(restricted: readonly string[] | undefined, read: readonly string[] | undefined): readonly string[] | undefined {
  if (!restricted || restricted.length === 0) return undefined;
  const named = (field: string) => read?.some((prefix) => prefix === field || prefix.startsWith(`${field}/`)) ?? false;
  const withheld = restricted.filter((field) => !named(field));
  return withheld.length > 0 ? withheld : undefined;
}
