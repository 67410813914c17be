import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { PatchOp } from "../../abi/envelope.js";
import { parsePointer } from "../../host/pipeline/json-pointer.js";
import { applyPatch } from "../../host/pipeline/patch.js";
import { getPoint, POINTS, type PointName } from "../../host/pipeline/points.js";
import { validatePayload } from "../../host/pipeline/validators.js";
import { sample } from "./samples.js";

/** The payload with the subtrees at `prefixes` removed: what no allowed patch may change. */
function protectedPart(payload: unknown, prefixes: readonly string[]): unknown {
  const copy = structuredClone(payload) as Record<string, unknown>;
  for (const prefix of prefixes) {
    const path = parsePointer(prefix)!;
    let parent: unknown = copy;
    for (const segment of path.slice(0, -1)) parent = (parent as Record<string, unknown> | undefined)?.[segment];
    if (parent && typeof parent === "object") delete (parent as Record<string, unknown>)[path[path.length - 1]!];
  }
  return copy;
}

const segment = fc.oneof(
  fc.constantFrom("0", "1", "2", "3", "-", "content", "role", "temperature", "max_tokens", "limit", "q", "__proto__", "constructor"),
  fc.string({ maxLength: 4 }),
);
const value = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer({ min: -2, max: 300 }),
  fc.double({ min: 0, max: 1, noNaN: true }),
  fc.constant(null),
  fc.record({ role: fc.constantFrom("user", "assistant", "system", "tool", "boss"), content: fc.oneof(fc.string({ maxLength: 5 }), fc.constant(null)) }),
  fc.array(fc.string({ maxLength: 3 }), { maxLength: 4 }),
  fc.jsonValue({ maxDepth: 2 }),
);

/** Every leaf under the patchable prefixes of the sample, with its current value. */
function leaves(value: unknown, path: string): [string, unknown][] {
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) => leaves(v, `${path}/${k}`));
  }
  return [[path, value]];
}

/** A replace that keeps the leaf's kind: these mostly pass, so the property sees accepted patches too. */
function plausibleOp(point: PointName): fc.Arbitrary<PatchOp> {
  const payload = sample(point);
  const candidates = getPoint(point).patchable.flatMap((prefix) => leaves(payload[parsePointer(prefix)![0]!], prefix));
  return fc.constantFrom(...candidates).chain(([path, old]) => {
    const next: fc.Arbitrary<unknown> =
      typeof old === "string" ? fc.string({ maxLength: 8 })
      : typeof old === "number" ? fc.double({ min: 0, max: 1, noNaN: true })
      : fc.constant(old);
    return next.map((v): PatchOp => ({ op: "replace", path, value: v }));
  });
}

function opsFor(point: PointName) {
  const spec = getPoint(point);
  const tops = Object.keys((spec.schema as { properties: object }).properties).map((k) => `/${k}`);
  const base = fc.constantFrom(...spec.patchable, ...tops, "");
  const path = fc.tuple(base, fc.oneof({ arbitrary: fc.constant([]), weight: 2 }, { arbitrary: fc.array(segment, { minLength: 1, maxLength: 3 }), weight: 3 })).map(([b, rest]) => [b, ...rest].join("/"));
  const op: fc.Arbitrary<PatchOp> = fc.oneof(
    plausibleOp(point),
    fc.record({ op: fc.constantFrom("add" as const, "replace" as const), path, value }),
    fc.record({ op: fc.constant("remove" as const), path }),
  );
  return fc.array(op, { minLength: 1, maxLength: 3 });
}

describe("applyPatch, for arbitrary patches", () => {
  const patchable = POINTS.filter((p) => p.patchable.length > 0).map((p) => p.name as PointName);

  it.each(patchable)("at %s never yields a payload that fails the schema, touches a protected field or mutates the input", (point) => {
    const spec = getPoint(point);
    let accepted = 0;
    fc.assert(
      fc.property(opsFor(point), fc.option(fc.subarray([...spec.patchable]), { nil: undefined }), (ops, write) => {
        const payload = sample(point);
        const snapshot = structuredClone(payload);
        const result = applyPatch(point, payload, ops, write ? { write } : undefined);
        expect(payload).toEqual(snapshot);
        if (!result.ok) {
          expect(["PATCH_FORBIDDEN", "PATCH_INVALID"]).toContain(result.error.code);
          return;
        }
        accepted++;
        expect(validatePayload(point, result.payload)).toEqual({ ok: true });
        expect(protectedPart(result.payload, write ?? spec.patchable)).toEqual(protectedPart(snapshot, write ?? spec.patchable));
      }),
      { numRuns: 400 },
    );
    // The property is only worth something if some patches got through.
    expect(accepted).toBeGreaterThan(0);
  });
});
