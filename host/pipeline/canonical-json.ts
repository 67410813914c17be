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
      if (Array.isArray(value)) return `[${value.map((v) => write(v, depth + 1)).join(",")}]`;
      const entries = Object.keys(value)
        .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${write((value as Record<string, unknown>)[k], depth + 1)}`);
      return `{${entries.join(",")}}`;
    }
    default:
      throw new TypeError(`canonicalJson: a ${typeof value} is not JSON data`);
  }
}
