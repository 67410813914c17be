/**
 * One canonical text for a JSON-like value: object keys sorted by code unit, no
 * whitespace, `undefined` properties dropped (as JSON.stringify does). Two values that
 * mean the same configuration give the same text whatever order their keys were built in.
 * A BigInt (msgpack int64) is written as the integer it is, so `1n` and `1` agree.
 */
export function canonicalJson(value: unknown): string {
  return write(value, 0);
}

function write(value: unknown, depth: number): string {
  if (depth > 64) throw new TypeError("canonicalJson: nesting deeper than 64");
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${value} has no JSON form`);
      return JSON.stringify(value);
    case "bigint":
      return value.toString();
    case "object": {
      // Built by concatenation: no array of entries per object (digests run on every boundary call).
      let out: string;
      if (Array.isArray(value)) {
        out = "[";
        for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + write(value[i], depth + 1);
        return out + "]";
      }
      const keys = sortedKeys(value);
      out = "{";
      for (const k of keys) {
        const v = (value as Record<string, unknown>)[k];
        if (v === undefined) continue;
        out += (out.length === 1 ? "" : ",") + JSON.stringify(k) + ":" + write(v, depth + 1);
      }
      return out + "}";
    }
    default:
      throw new TypeError(`canonicalJson: a ${typeof value} is not JSON data`);
  }
}

/**
 * The object's keys in code-unit order, as `Object.keys(o).sort()` gives them. Sorted in place
 * by insertion while they are few (an object of a payload has a handful): V8's sort copies the
 * array into a work array first, which was 8 % of what `sluice serve` allocated at 2,000
 * requests/s (the digests of every boundary call).
 */
function sortedKeys(value: object): string[] {
  const keys = Object.keys(value);
  if (keys.length > 16) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const k = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > k) { keys[j + 1] = keys[j]!; j--; }
    keys[j + 1] = k;
  }
  return keys;
}
