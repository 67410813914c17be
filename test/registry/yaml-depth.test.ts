// A manifest nested too deeply is refused before the YAML parser recurses into it: V8 aborts
// the process (no RangeError) when a regular expression must be compiled with the stack nearly
// used up, which a 6 KB manifest of nested `- - - ... x` did during a property run.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MANIFEST_MAX_NESTING, parseManifest } from "../../host/registry/manifest.js";
import { yamlNestingBound } from "../../host/registry/yaml-depth.js";

const refusal = (text: string) => {
  try { parseManifest(text); } catch (err) { return err as { code?: string; message: string; details?: Record<string, unknown> }; }
  return undefined;
};

describe("manifest nesting", () => {
  it("refuses block, compact, flow and indentation nesting past the limit with MANIFEST_INVALID, before parsing", () => {
    for (const text of ["- ".repeat(3_000) + "x", "[".repeat(5_000), "{a: ".repeat(2_000) + "1" + "}".repeat(2_000), Array.from({ length: 300 }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n") + " 1\n", "? ".repeat(400) + "x"]) {
      const e = refusal(text);
      expect(e?.code).toBe("MANIFEST_INVALID");
      expect(e?.message).toMatch(/nested too deeply/);
      expect(e?.details).toMatchObject({ limit: MANIFEST_MAX_NESTING });
    }
  });

  it("keeps every reference plugin's manifest well inside the bound, and they still parse", () => {
    const root = new URL("../../plugins/", import.meta.url);
    const dirs = readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory() && existsSync(new URL(`${d.name}/hook.yaml`, root)));
    expect(dirs.length).toBeGreaterThan(5);
    for (const d of dirs) {
      const text = readFileSync(new URL(`${d.name}/hook.yaml`, root), "utf8");
      expect(yamlNestingBound(text)).toBeLessThan(40);
      expect(parseManifest(text).id).toBe(d.name);
    }
  });

  it("bounds the depth from above: a nesting just under the limit is left to the parser", () => {
    expect(yamlNestingBound("a:\n  b:\n    - c\n    - [1, {d: 2}]\n")).toBeGreaterThanOrEqual(4);
    // Indentation alone: a line deeper than its parent opens a level, a line beside it none.
    expect(yamlNestingBound("a:\n  b:\n  c:\n    d: 1\n")).toBe(3);
    expect(refusal("- ".repeat(100) + "x")?.message ?? "").not.toMatch(/nested too deeply/);
  });
});
