/**
 * A field-level difference of two JSON values, as JSON Pointer paths: what `sluice test`
 * shows instead of two whole payloads on one line.
 */
import { isDeepStrictEqual } from "node:util";

export interface Difference {
  /** JSON Pointer ("" is the whole value). */
  path: string;
  /** Absent when the field is missing on that side. */
  expected?: unknown;
  actual?: unknown;
}

const escape = (key: string): string => key.replace(/~/g, "~0").replace(/\//g, "~1");
const isMap = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Every leaf where `actual` differs from `expected`, in document order (expected's keys first). */
export function jsonDiff(expected: unknown, actual: unknown, path = ""): Difference[] {
  if (isDeepStrictEqual(expected, actual)) return [];
  if (isMap(expected) && isMap(actual)) {
    const keys = [...Object.keys(expected), ...Object.keys(actual).filter((k) => !(k in expected))];
    return keys.flatMap((k) => {
      const p = `${path}/${escape(k)}`;
      if (!(k in actual)) return [{ path: p, expected: expected[k] }];
      if (!(k in expected)) return [{ path: p, actual: actual[k] }];
      return jsonDiff(expected[k], actual[k], p);
    });
  }
  if (Array.isArray(expected) && Array.isArray(actual)) {
    const out: Difference[] = [];
    for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
      const p = `${path}/${i}`;
      if (i >= actual.length) out.push({ path: p, expected: expected[i] });
      else if (i >= expected.length) out.push({ path: p, actual: actual[i] });
      else out.push(...jsonDiff(expected[i], actual[i], p));
    }
    return out;
  }
  return [{ path, expected, actual }];
}

const show = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? `${x}n` : x)) ?? "undefined";

/** One line per difference: `payload/arguments/limit: expected 100, got 500`. */
export function diffLines(label: string, expected: unknown, actual: unknown): string[] {
  return jsonDiff(expected, actual).map((d) => `${label}${d.path}: ${"expected" in d ? `expected ${show(d.expected)}` : "not expected"}, ${"actual" in d ? `got ${show(d.actual)}` : "missing"}`);
}
