/**
 * JSON Pointers (RFC 6901) as segment arrays. Prefix tests compare segments, not
 * strings, so `/params` never claims `/paramsX` and an escaped `~1` never fakes a `/`.
 */

/** Segments that would reach an object's prototype when used as a property name. */
export const FORBIDDEN_SEGMENTS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

/** Parses a pointer into its unescaped segments; `undefined` when it is not a valid pointer. */
export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) return undefined;
  const segments: string[] = [];
  for (const raw of pointer.slice(1).split("/")) {
    if (/~(?![01])/.test(raw)) return undefined;
    segments.push(raw.replace(/~1/g, "/").replace(/~0/g, "~"));
  }
  return segments;
}

/** True when `path` is `prefix` itself or lies inside it. */
export function isUnder(path: readonly string[], prefix: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((segment, i) => path[i] === segment);
}
