/** Author-written config schemas cannot stall the process or crash the check. */
import { describe, expect, it } from "vitest";
import { checkConfig, compileConfigSchema } from "../../host/registry/config-schema.js";
import { parseManifest } from "../../host/registry/manifest.js";
import { isSluiceError, type SluiceError } from "../../host/errors/sluice-error.js";
import { manifestYaml } from "./fixtures.js";

const EVIL = "^(a+)+$";
const attack = "a".repeat(27) + "!";

function thrown(fn: () => unknown): SluiceError {
  try { fn(); } catch (err) { if (isSluiceError(err)) return err; throw err; }
  throw new Error("expected a SluiceError");
}

function nested(depth: number, leaf: unknown = 1): unknown {
  let v: unknown = leaf;
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

describe("config schema patterns run on a linear-time engine", () => {
  const cases: [string, Record<string, unknown>, unknown][] = [
    ["pattern", { type: "object", properties: { s: { type: "string", pattern: EVIL } } }, { s: attack }],
    ["propertyNames", { type: "object", propertyNames: { pattern: EVIL } }, { [attack]: 1 }],
    ["patternProperties", { type: "object", patternProperties: { [EVIL]: { type: "string" } } }, { [attack]: 1 }],
  ];
  for (const [keyword, schema, config] of cases) {
    it(`answers a catastrophic ${keyword} in milliseconds, with the right verdict`, () => {
      const started = performance.now();
      const err = keyword === "patternProperties" ? undefined : thrown(() => checkConfig(schema, config, "p@1.0.0"));
      if (keyword === "patternProperties") checkConfig(schema, config, "p@1.0.0"); // the key does not match, so nothing applies
      const long = "a".repeat(100_000) + "!";
      if (keyword === "pattern") expect(thrown(() => checkConfig(schema, { s: long }, "p@1.0.0")).code).toBe("PLUGIN_CONFIG_INVALID");
      expect(performance.now() - started).toBeLessThan(500);
      if (err) expect(err.code).toBe("PLUGIN_CONFIG_INVALID");
    });
  }

  it("still matches what a pattern should match", () => {
    checkConfig({ type: "object", properties: { s: { type: "string", pattern: EVIL } } }, { s: "aaaa" }, "p@1.0.0");
    checkConfig({ type: "object", patternProperties: { "^x-": { type: "integer" } } }, { "x-a": 1 }, "p@1.0.0");
    expect(thrown(() => checkConfig({ type: "object", patternProperties: { "^x-": { type: "integer" } } }, { "x-a": "no" }, "p@1.0.0")).code).toBe("PLUGIN_CONFIG_INVALID");
  });

  it("refuses at upload a pattern the linear-time engine cannot run (backreference, lookahead)", () => {
    for (const pattern of ["(a)\\1", "^(?!x)"]) {
      const err = thrown(() => parseManifest(manifestYaml({ config_schema: { type: "object", properties: { s: { type: "string", pattern } } } })));
      expect(err.code).toBe("MANIFEST_INVALID");
      expect(err.message).toMatch(/RE2/);
    }
  });
});

describe("config schema limits", () => {
  it("refuses a $ref cycle at upload with MANIFEST_INVALID", () => {
    const schema = { $defs: { node: { type: "object", properties: { a: { $ref: "#/$defs/node" } } } }, $ref: "#/$defs/node" };
    const err = thrown(() => parseManifest(manifestYaml({ config_schema: schema })));
    expect(err.code).toBe("MANIFEST_INVALID");
    expect(err.details).toMatchObject({ field: "config_schema", limit: "refCycle" });
  });

  it("answers a 200,000-deep config against a $ref cycle with a 4xx code, not a crash", () => {
    const schema = { $defs: { node: { type: "object", properties: { a: { $ref: "#/$defs/node" } } } }, $ref: "#/$defs/node" };
    const err = thrown(() => checkConfig(schema, nested(200_000), "p@1.0.0"));
    expect(err.code).toBe("PLUGIN_CONFIG_INVALID");
    expect(err.status).toBe(400);
    expect(err.details).toMatchObject({ limit: "depth" });
  });

  it("refuses refs that double at each link before they expand exponentially", () => {
    const $defs: Record<string, unknown> = { d0: { type: "string" } };
    for (let i = 1; i <= 20; i++) $defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i - 1}` }, { $ref: `#/$defs/d${i - 1}` }] };
    const started = performance.now();
    const err = thrown(() => compileConfigSchema({ $defs, $ref: "#/$defs/d20" }));
    expect(err.details).toMatchObject({ limit: "expandedNodes", max: 256 });
    expect(performance.now() - started).toBeLessThan(200);
  });

  it("refuses a config_schema nested more than 32 deep (65 levels: MANIFEST_INVALID, not a 500)", () => {
    let schema: Record<string, unknown> = { type: "object" };
    for (let i = 0; i < 65; i++) schema = { type: "object", properties: { a: schema } };
    const err = thrown(() => parseManifest(manifestYaml({ config_schema: schema })));
    expect(err.code).toBe("MANIFEST_INVALID");
    expect(err.details).toMatchObject({ limit: "depth", max: 32 });
  });

  it("refuses remote refs, dynamic refs and uniqueItems over objects", () => {
    expect(thrown(() => compileConfigSchema({ $ref: "https://example.com/s.json" })).details).toMatchObject({ limit: "ref" });
    expect(thrown(() => compileConfigSchema({ $dynamicRef: "#meta" })).details).toMatchObject({ limit: "keyword" });
    expect(thrown(() => compileConfigSchema({ type: "array", uniqueItems: true })).details).toMatchObject({ limit: "uniqueItems" });
    compileConfigSchema({ type: "array", uniqueItems: true, items: { type: "string" } });
  });

  it("refuses a config with too many values", () => {
    const err = thrown(() => checkConfig({ type: "object" }, { list: Array.from({ length: 10_001 }, () => 0) }, "p@1.0.0"));
    expect(err.details).toMatchObject({ limit: "nodes", max: 10_000 });
  });

  it("accepts the schemas of every reference plugin", async () => {
    const { readdirSync, readFileSync } = await import("node:fs");
    const dir = new URL("../../plugins/", import.meta.url);
    for (const name of readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name)) {
      const file = new URL(`${name}/hook.yaml`, dir);
      let text: string;
      try { text = readFileSync(file, "utf8"); } catch { continue; }
      expect(() => parseManifest(text), name).not.toThrow();
    }
  });
});

describe("uniqueItems stays linear", () => {
  it("checks uniqueness of 10,000 items of an enum in milliseconds (the same verdicts)", () => {
    const schema = { type: "object", properties: { kinds: { type: "array", items: { enum: ["email", "phone"] }, uniqueItems: true } } };
    const started = performance.now();
    expect(thrown(() => checkConfig(schema, { kinds: Array.from({ length: 9_999 }, (_, i) => i) }, "p@1.0.0")).code).toBe("PLUGIN_CONFIG_INVALID");
    expect(performance.now() - started).toBeLessThan(100);
    checkConfig(schema, { kinds: ["email", "phone"] }, "p@1.0.0");
    expect(thrown(() => checkConfig(schema, { kinds: ["email", "email"] }, "p@1.0.0")).message).toMatch(/duplicate/);
  });
});

describe("every check runs under a work budget", () => {
  it("stops a check whose schema and config are each within limits but whose product is not", () => {
    const schema = { type: "array", items: { anyOf: Array.from({ length: 60 }, (_, i) => ({ type: "string", pattern: `^(a+)+${i}$` })) } };
    const started = performance.now();
    const err = thrown(() => checkConfig(schema, Array.from({ length: 9_000 }, () => "aaaa59"), "p@1.0.0"));
    expect(err.details).toMatchObject({ limit: "work" });
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});
