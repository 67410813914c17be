import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../host/pipeline/canonical-json.js";
import { embeddingIndexSignature, type EmbeddingChainLink } from "../../host/pipeline/signature.js";

const chain: EmbeddingChainLink[] = [
  { pluginId: "pii-mask", version: "1.2.0", codeSha256: "a".repeat(64), config: { mask: "*", fields: ["email", "phone"] } },
  { pluginId: "lowercase", version: "0.1.0", codeSha256: "b".repeat(64), config: {} },
];
const model = { provider: "local", model: "e5-small", dimension: 384 };
const base = embeddingIndexSignature(chain, model);

describe("embeddingIndexSignature", () => {
  it("is a sha256 hex digest", () => {
    expect(base).toMatch(/^[0-9a-f]{64}$/);
  });

  it("is stable across calls and key order", () => {
    const reordered = chain.map((l) => ({ config: l.config, codeSha256: l.codeSha256, version: l.version, pluginId: l.pluginId }));
    expect(embeddingIndexSignature(reordered, { dimension: 384, model: "e5-small", provider: "local" })).toBe(base);
    expect(embeddingIndexSignature(structuredClone(chain), structuredClone(model))).toBe(base);
  });

  it("ignores fields outside the frozen inputs", () => {
    const extra = chain.map((l) => ({ ...l, displayName: "whatever" }));
    expect(embeddingIndexSignature(extra, model)).toBe(base);
  });

  it.each([
    ["plugin id", (c: EmbeddingChainLink[]) => { c[0]!.pluginId = "pii-mask2"; }],
    ["version", (c: EmbeddingChainLink[]) => { c[0]!.version = "1.2.1"; }],
    ["code hash", (c: EmbeddingChainLink[]) => { c[1]!.codeSha256 = "c".repeat(64); }],
    ["config value", (c: EmbeddingChainLink[]) => { (c[0]!.config as { mask: string }).mask = "#"; }],
    ["config array order", (c: EmbeddingChainLink[]) => { (c[0]!.config as { fields: string[] }).fields.reverse(); }],
    ["chain order", (c: EmbeddingChainLink[]) => { c.reverse(); }],
    ["chain length", (c: EmbeddingChainLink[]) => { c.pop(); }],
  ])("changes when the %s changes", (_, change) => {
    const changed = structuredClone(chain);
    change(changed);
    expect(embeddingIndexSignature(changed, model)).not.toBe(base);
  });

  it("changes when the model config changes", () => {
    expect(embeddingIndexSignature(chain, { ...model, dimension: 768 })).not.toBe(base);
    expect(embeddingIndexSignature(chain, { ...model, model: "e5-base" })).not.toBe(base);
  });

  it("tells an empty chain from a missing model config", () => {
    expect(embeddingIndexSignature([], model)).not.toBe(embeddingIndexSignature([], null));
  });
});

describe("canonicalJson", () => {
  it("sorts keys at every depth and drops undefined properties", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[3,{"y":2,"z":1}]},"b":1}');
  });

  it("writes a BigInt as the integer it is", () => {
    expect(canonicalJson({ n: 9007199254740993n })).toBe('{"n":9007199254740993}');
    expect(canonicalJson(1n)).toBe(canonicalJson(1));
  });

  it("refuses values JSON cannot hold", () => {
    expect(() => canonicalJson(Number.NaN)).toThrow(/no JSON form/);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(/not JSON data/);
  });
});
