/** The ABI codec under arbitrary values and bytes (abi/codec.ts). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decode, encode } from "../../abi/codec.js";

/** Values of the ABI's data model (§4): what a host or guest can put in a request or reply. */
const abiValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", maxDepth: 5 },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.maxSafeInteger(),
    // -0 is sent as the integer 0 (smallest form), so it comes back as 0.
    fc.double().map((d) => (Object.is(d, -0) ? 0 : d)),
    // Beyond 2^53 integers come back as BigInt (2^53 itself is exact as a number and comes back as one).
    fc.bigInt({ min: 2n ** 53n + 1n, max: 2n ** 63n - 1n }),
    fc.string({ unit: "binary", maxLength: 40 }),
    fc.string({ unit: "grapheme", maxLength: 300 }),
    fc.uint8Array({ maxLength: 64 }),
    fc.array(tie("value"), { maxLength: 6 }),
    // "__proto__" is excluded here: see the next test for what happens to it.
    fc.dictionary(fc.string({ unit: "binary", maxLength: 10 }).filter((k) => k !== "__proto__"), tie("value"), { maxKeys: 6, noNullPrototype: true }),
  ),
})).value;

describe("codec properties", () => {
  it("decode(encode(v)) equals v for every value of the ABI data model", () => {
    fc.assert(fc.property(abiValue, (v) => {
      expect(decode(encode(v))).toStrictEqual(v);
    }), { numRuns: 2_000 });
  });

  it("encoding is deterministic and owns its bytes (no view into a shared pool)", () => {
    fc.assert(fc.property(abiValue, (v) => {
      const a = encode(v);
      const b = encode(v);
      expect(a).toEqual(b);
      expect(a.byteOffset).toBe(0);
      expect(a.buffer.byteLength).toBe(a.byteLength);
    }), { numRuns: 500 });
  });

  it("decoded maps are plain objects, whatever their keys: __proto__ and friends never reach a prototype", () => {
    const key = fc.oneof(fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty"), fc.string({ maxLength: 6 }));
    fc.assert(fc.property(fc.array(fc.tuple(key, abiValue), { maxLength: 6 }), (entries) => {
      // Built as a msgpack map by hand: a JS object literal cannot even hold an own __proto__ key.
      const bytes = encode(new Map(entries));
      const back = decode(bytes) as Record<string, unknown>;
      expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(Object.prototype.hasOwnProperty.call(back, "__proto__")).toBe(false);
    }), { numRuns: 500 });
  });

  it("arbitrary bytes either decode or throw an Error: never a hang, never a non-Error throw", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
      try { decode(bytes); } catch (err) { expect(err).toBeInstanceOf(Error); }
    }), { numRuns: 5_000 });
  });
});
