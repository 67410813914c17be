import { describe, expect, it } from "vitest";
import { isSluiceError } from "../../host/errors/sluice-error.js";
import { validateManifest } from "../../host/registry/manifest.js";
import { closest } from "../../host/registry/validation-message.js";
import { jsonDiff } from "../../host/objects/json-diff.js";

function manifestError(value: unknown): string {
  try {
    validateManifest(value);
  } catch (err) {
    if (isSluiceError(err)) return err.message;
    throw err;
  }
  throw new Error("accepted");
}

const BASE = { id: "p", version: "1.0.0", abi: "1.0", entry: "a.ts", capability_boundary: "x", points: { "tool.before": { read: ["/arguments"] } } };

describe("validation messages", () => {
  it("name a nested unknown key with its path, the allowed keys and the likely one", () => {
    expect(manifestError({ ...BASE, points: { "tool.before": { wirte: ["/arguments"] } } }))
      .toBe('hook.yaml: unknown property "wirte" at /points/tool.before (allowed: read, write); did you mean "write"?');
  });

  it("name a bad enum value and the allowed values", () => {
    expect(manifestError({ ...BASE, failure_policy: "fail-shut" }))
      .toBe('hook.yaml: /failure_policy "fail-shut" is not one of the allowed values ("fail-closed", "fail-open")');
  });

  it("say the value a wrong type or range got", () => {
    expect(manifestError({ ...BASE, limits: { timeout_ms: -1 } })).toBe("hook.yaml: /limits/timeout_ms must be > 0 (got -1)");
  });

  it("suggest only close names", () => {
    expect(closest("outcom", ["outcome", "payload"])).toBe("outcome");
    expect(closest("zzz", ["outcome", "payload"])).toBeUndefined();
  });
});

describe("jsonDiff", () => {
  it("lists every differing leaf as a JSON Pointer, missing and extra fields included", () => {
    expect(jsonDiff({ a: { b: 1, "c/d": [1, 2] }, gone: true }, { a: { b: 2, "c/d": [1] }, extra: null })).toEqual([
      { path: "/a/b", expected: 1, actual: 2 },
      { path: "/a/c~1d/1", expected: 2 },
      { path: "/gone", expected: true },
      { path: "/extra", actual: null },
    ]);
    expect(jsonDiff({ x: [1] }, { x: [1] })).toEqual([]);
    expect(jsonDiff(1, "1")).toEqual([{ path: "", expected: 1, actual: "1" }]);
  });
});
