import { describe, expect, it } from "vitest";
import { decode, encode } from "../../abi/codec.js";
import { parseReply } from "../../abi/envelope.js";
import { loadCodecVectors, loadEnvelopeVectors, loadInvalidVectors, loadNoncanonicalVectors, toHex } from "../../abi/vectors.js";

// msgpackr hands back Buffers for bin; the vectors hold Uint8Arrays.
function plain(v: unknown): unknown {
  if (v instanceof Uint8Array) return new Uint8Array(v);
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

describe("the host codec against the ABI v1 golden vectors", () => {
  for (const v of [...loadCodecVectors(), ...loadEnvelopeVectors()]) {
    it(`decodes ${v.name} to the vector's value`, () => {
      expect(plain(decode(v.bytes))).toStrictEqual(v.decoded);
    });
    it(`encodes ${v.name} to exactly the vector's bytes`, () => {
      expect(toHex(encode(v.encodeInput))).toBe(toHex(v.bytes));
    });
  }

  for (const v of loadNoncanonicalVectors()) {
    it(`accepts the non-canonical form ${v.name} and writes it back canonically`, () => {
      const value = decode(v.bytes);
      expect(plain(value)).toStrictEqual(v.decoded);
      expect(toHex(encode(value))).toBe(toHex(v.canonical));
    });
  }

  for (const v of loadInvalidVectors().filter((x) => x.kind === "bytes")) {
    it(`refuses ${v.name}: ${v.reason}`, () => {
      expect(() => decode(v.bytes)).toThrow();
    });
  }

  // msgpackr has no depth limit; the host enforces 64 where it reads guest data, in parseReply.
  for (const v of loadInvalidVectors().filter((x) => x.kind === "depth")) {
    it(`refuses a reply holding ${v.name}: ${v.reason}`, () => {
      const reply = { abi: "1.0", outcome: "short_circuit", result: decode(v.bytes) };
      expect(parseReply(reply, (x) => encode(x).length).ok).toBe(false);
    });
  }
});
