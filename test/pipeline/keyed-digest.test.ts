/**
 * The records' keyed digest is HMAC-SHA-256 of the content hash, exactly as RFC 2104 and
 * node's createHmac compute it: digests stored by earlier releases stay verifiable, and an
 * auditor checks one with any HMAC tool and the deployment's key.
 */
import { createHash, createHmac } from "node:crypto";
import { expect, it } from "vitest";
import { createDigester, digestOf } from "../../host/pipeline/digest.js";
import { canonicalJson } from "../../host/pipeline/canonical-json.js";

const value = { b: [1, "é", { z: null, a: true }], a: "text with \u0000 and 😀" };

it("digestOf is sha256 of the canonical JSON", () => {
  expect(digestOf(value)).toBe(createHash("sha256").update(canonicalJson(value)).digest("hex"));
});

it.each([
  ["a 16-byte key", "k".repeat(16)],
  ["a 64-byte key (one block)", "x".repeat(64)],
  ["a key longer than a block (hashed first)", "long key ".repeat(20)],
  ["a binary key", new Uint8Array(Array.from({ length: 40 }, (_, i) => (i * 37) & 0xff))],
])("keys the content hash as createHmac does, with %s", (_, key) => {
  const digests = createDigester(key);
  const expected = createHmac("sha256", typeof key === "string" ? Buffer.from(key, "utf8") : Buffer.from(key)).update(`sluice-digest-v1\u0000${digestOf(value)}`).digest("hex");
  expect(digests.of(value)).toBe(expected);
  expect(digests.rekey(digestOf(value))).toBe(expected);
});
