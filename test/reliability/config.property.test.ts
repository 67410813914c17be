/**
 * Arbitrary manifests and bindings are either valid or refused with a code: never a
 * TypeError, never a crash, and whatever is accepted keeps its invariants.
 */
import fc from "fast-check";
import { stringify } from "yaml";
import { describe, expect, it } from "vitest";
import { SluiceError } from "../../host/errors/sluice-error.js";
import { resolveRelease } from "../../host/pipeline/release.js";
import { getPoint, isPointName, POINT_NAMES, type PointName } from "../../host/pipeline/points.js";
import { parseManifest, validateManifest } from "../../host/registry/manifest.js";
import { PLUGIN_ID_PATTERN } from "../../host/registry/ids.js";

const pointNames = POINT_NAMES;

/** Runs `f`; a throw must be a SluiceError with `code`. Returns the value, or undefined when refused. */
function validOrRefused<T>(code: string, f: () => T): T | undefined {
  try {
    return f();
  } catch (err) {
    expect(err).toBeInstanceOf(SluiceError);
    expect((err as SluiceError).code).toBe(code);
    return undefined;
  }
}

const pointer = fc.oneof(fc.constantFrom("/messages", "/params/temperature", "/content", "/texts", "/arguments/limit", "/", "", "messages", "/a/../b"), fc.string({ maxLength: 12 }));
/** Mostly the valid value, sometimes a hostile or broken one: about one manifest in ten is valid. */
const mostly = <T, U>(valid: fc.Arbitrary<T>, broken: fc.Arbitrary<U>) => fc.oneof({ weight: 5, arbitrary: valid }, { weight: 1, arbitrary: broken });
const grant = mostly(
  fc.record({ read: fc.uniqueArray(fc.constantFrom("/messages", "/arguments", "/content", "/texts"), { maxLength: 2 }) }, { requiredKeys: [] }),
  fc.record({ read: fc.array(pointer, { maxLength: 3 }), write: fc.array(pointer, { maxLength: 2 }) }, { requiredKeys: [] }));
const nearManifest = fc.record({
  id: mostly(fc.constantFrom("order-limit", "a", "p-1"), fc.oneof(fc.constantFrom("-bad", "UPPER", "x".repeat(65)), fc.string({ maxLength: 10 }))),
  version: mostly(fc.constantFrom("1.0.0", "1.0.0-rc.1+b5"), fc.oneof(fc.constantFrom("1.0", "01.0.0", "v1.0.0"), fc.string({ maxLength: 8 }))),
  abi: mostly(fc.constant("1.0"), fc.constantFrom("1.9", "2.0", "0.1", "1", 1)),
  entry: mostly(fc.constantFrom("hook.wasm", "build/hook.wasm"), fc.constantFrom("/etc/passwd", "../hook.wasm", "a/../../b.wasm", "", "a\u0000b", "a\\b")),
  description: mostly(fc.string({ maxLength: 20 }), fc.integer()),
  points: mostly(
    fc.dictionary(fc.constantFrom(...pointNames), fc.oneof(fc.constant(null), fc.constant({}), grant), { minKeys: 1, maxKeys: 3 }),
    fc.oneof(fc.constantFrom([], "tool.before", null, {}), fc.dictionary(fc.string({ maxLength: 8 }), grant, { maxKeys: 2 }))),
  config_schema: mostly(fc.constant({ type: "object", properties: { max: { type: "integer" } } }), fc.oneof(fc.constantFrom({ type: 5 }, { $ref: "#/nowhere" }, { type: "object", properties: { a: { pattern: "(" } } }), fc.jsonValue({ maxDepth: 2 }))),
  capabilities: mostly(fc.constantFrom([], ["kv"]), fc.oneof(fc.constant(["kv", "kv"]), fc.array(fc.string({ maxLength: 5 }), { minLength: 1, maxLength: 2 }))),
  limits: mostly(fc.record({ memory_mb: fc.integer({ min: 1, max: 64 }), timeout_ms: fc.integer({ min: 1, max: 5_000 }) }, { requiredKeys: [] }),
    fc.oneof(fc.record({ memory_mb: fc.double(), timeout_ms: fc.integer({ min: -5, max: 4_000_000 }), input_kb: fc.integer({ min: -1, max: 2 ** 21 }) }, { requiredKeys: [] }), fc.jsonValue({ maxDepth: 1 }))),
  failure_policy: mostly(fc.constantFrom("fail-closed", "fail-open"), fc.constantFrom("maybe", null)),
  capability_boundary: mostly(fc.constant("reads tool arguments only"), fc.constantFrom("", 7)),
  extra: fc.jsonValue({ maxDepth: 1 }),
}, { requiredKeys: ["id", "version", "abi", "entry", "points", "capability_boundary"] }).map((m) => {
  // An unknown key must be refused too, but only sometimes, or nothing is ever valid.
  const { extra, ...rest } = m as Record<string, unknown>;
  return extra !== undefined && typeof extra === "number" ? { ...rest, extra } : rest;
});

describe("manifests", () => {
  it("validateManifest accepts a manifest that keeps the rules, or refuses it with MANIFEST_INVALID", () => {
    let accepted = 0;
    fc.assert(fc.property(fc.oneof({ weight: 3, arbitrary: nearManifest }, { weight: 1, arbitrary: fc.anything() }), (value) => {
      const m = validOrRefused("MANIFEST_INVALID", () => validateManifest(value));
      if (!m) return;
      accepted++;
      expect(m.id).toMatch(PLUGIN_ID_PATTERN);
      expect(m.entry.startsWith("/")).toBe(false);
      expect(m.entry.split("/")).not.toContain("..");
      for (const [name, grant] of Object.entries(m.points)) {
        expect(isPointName(name)).toBe(true);
        for (const w of grant.write ?? []) expect(getPoint(name as PointName).patchable.some((p) => w === p || w.startsWith(`${p}/`))).toBe(true);
      }
    }), { numRuns: 3_000 });
    expect(accepted).toBeGreaterThan(0);
  });

  it("parseManifest refuses any text it cannot accept with MANIFEST_INVALID, YAML included", () => {
    const text = fc.oneof(
      fc.string({ maxLength: 200 }),
      nearManifest.map((m) => stringify(m)),
      fc.constantFrom("a: &x [1]\nb: *x\n", "{".repeat(5_000), "- ".repeat(3_000) + "x", "!!js/function 'f'", "a: 1\na: 2\n", "x".repeat(70 * 1024)),
    );
    fc.assert(fc.property(text, (t) => { validOrRefused("MANIFEST_INVALID", () => parseManifest(t)); }), { numRuns: 600 });
  });
});

describe("bindings", () => {
  const binding = fc.record({
    id: fc.oneof(fc.constantFrom("b1", "b2", ""), fc.string({ maxLength: 4 })),
    hookRef: fc.constantFrom("p@1.0.0", "in-process"),
    point: fc.oneof(fc.constantFrom(...pointNames), fc.string({ maxLength: 8 })),
    priority: fc.oneof(fc.integer(), fc.double()),
    timeoutMs: fc.oneof(fc.integer({ min: -10, max: 100_000 }), fc.double()),
    failurePolicy: fc.constantFrom("fail-closed", "fail-open"),
    observeOnly: fc.boolean(),
    config: fc.jsonValue({ maxDepth: 2 }),
    match: fc.record({ toolIds: fc.array(fc.string({ maxLength: 3 }), { maxLength: 2 }) }, { requiredKeys: [] }),
  }, { requiredKeys: ["id", "hookRef", "point"] });
  const release = fc.record({
    revision: fc.oneof(fc.nat(), fc.integer({ min: -3, max: -1 }), fc.double()),
    orderMode: fc.constantFrom("staged", "symmetric", "sideways", undefined),
    bindings: fc.array(binding, { maxLength: 6 }),
  });

  it("resolveRelease returns a release with unique ids, known points and positive timeouts, or refuses with CONFIG_INVALID", () => {
    let accepted = 0;
    fc.assert(fc.property(release, (input) => {
      const r = validOrRefused("CONFIG_INVALID", () => resolveRelease(input as Parameters<typeof resolveRelease>[0]));
      if (!r) return;
      accepted++;
      expect(new Set(r.bindings.map((b) => b.id)).size).toBe(r.bindings.length);
      for (const b of r.bindings) {
        expect(b.id).not.toBe("");
        expect(isPointName(b.point)).toBe(true);
        expect(b.timeoutMs).toBeGreaterThan(0);
      }
      expect(Object.isFrozen(r.bindings)).toBe(true);
    }), { numRuns: 3_000 });
    expect(accepted).toBeGreaterThan(100);
  });
});
