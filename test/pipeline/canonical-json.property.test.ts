/**
 * canonicalJson, the text every digest hashes: keys in code-unit order at every depth (as
 * `Object.keys(o).sort()` orders them, for few keys and many), `undefined` members dropped,
 * the same text whatever order an object's keys were built in, and JSON that parses back to
 * the value. A digest that changed for the same value would break every stored reference.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../host/pipeline/canonical-json.js";

/** The definition, written plainly. */
function reference(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v !== "object") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(reference).join(",")}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o).sort().filter((k) => o[k] !== undefined).map((k) => `${JSON.stringify(k)}:${reference(o[k])}`).join(",")}}`;
}

// Keys that sort differently by code unit than by locale or by code point: upper before lower,
// digits as text, an astral character (two code units) against U+FFFF, the empty key.
const key = fc.oneof(fc.constantFrom("a", "B", "b", "_", "10", "9", "", "é", "\u{1F600}", "\uffff", "a\u0000", "role", "content"), fc.string({ maxLength: 4 }), fc.string({ unit: "binary", maxLength: 3 }));
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, fc.constant(null), fc.boolean(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string(), tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 4 }),
  // Up to 40 keys: both the few-key and the many-key orderings.
  object: fc.dictionary(key, fc.option(tie("value"), { nil: undefined }), { maxKeys: 40 }),
})).value;

describe("canonicalJson", () => {
  it("writes keys in code-unit order at every depth and drops undefined members, as the definition says", () => {
    fc.assert(fc.property(json, (v) => { expect(canonicalJson(v)).toBe(reference(v)); }), { numRuns: 2000 });
  });

  it("gives one text whatever order the keys were added in, and parses back to the value", () => {
    fc.assert(fc.property(fc.dictionary(key, json, { maxKeys: 30 }), (o) => {
      const reversed = Object.fromEntries(Object.entries(o).reverse());
      expect(canonicalJson(reversed)).toBe(canonicalJson(o));
      expect(JSON.parse(canonicalJson(o))).toEqual(JSON.parse(JSON.stringify(o)));
    }), { numRuns: 1000 });
  });

  it("sorts by code unit: upper case first, digits as text, a surrogate pair before U+FFFF", () => {
    expect(canonicalJson({ b: 1, a: 2, B: 3, "10": 4, "9": 5, "\uffff": 6, "\u{1F600}": 7, "": 8 })).toBe('{"":8,"10":4,"9":5,"B":3,"a":2,"b":1,"\u{1F600}":7,"\uffff":6}');
  });
});
