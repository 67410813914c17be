import { parsePointer } from "./json-pointer.js";

/**
 * The part of a payload a plugin was granted to read: only the subtrees under its read
 * prefixes, copied into a fresh object. A guest never receives a field it was not granted.
 */
export function readView(payload: Record<string, unknown>, read: readonly string[] | undefined): Record<string, unknown> {
  if (read === undefined) return payload;
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
