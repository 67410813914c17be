/**
 * The event schemas themselves: strict, versioned, in sync with their TypeScript mirror,
 * and never evolved except by addition (seed 003 §5.3).
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { EVENT_SCHEMAS, EVENT_SCHEMAS_BY_MAJOR, EVENT_SCHEMA_VERSION, EVENT_TYPES, validateEvent } from "../../abi/events/index.js";
import { POINT_NAMES } from "../../host/pipeline/points.js";
import { repoRoot } from "../helpers/fixtures.js";

const eventsDir = join(repoRoot, "abi/events");
const majors = readdirSync(eventsDir).filter((d) => /^v\d+$/.test(d)).sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
type Schema = Record<string, any>;
const schemaFiles = majors.flatMap((major) => readdirSync(join(eventsDir, major)).filter((f) => f.endsWith(".schema.json")).map((file) => ({ major, file, schema: JSON.parse(readFileSync(join(eventsDir, major, file), "utf8")) as Schema })));

/** Every object schema inside `s`, with its path. */
function objects(s: Schema, path = "#"): { path: string; schema: Schema }[] {
  const here = s.type === "object" && s.properties ? [{ path, schema: s }] : [];
  const children = Object.entries(s.properties ?? {}).flatMap(([k, v]) => objects(v as Schema, `${path}/properties/${k}`));
  return [...here, ...children, ...(s.items ? objects(s.items, `${path}/items`) : [])];
}

describe("event schemas (abi/events)", () => {
  it("are draft 2020-12 with a versioned $id naming their major and type", () => {
    expect(schemaFiles.length).toBeGreaterThan(0);
    for (const { major, file, schema } of schemaFiles) {
      const type = file.replace(".schema.json", "");
      expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(schema.$id).toBe(`https://sluice.dev/schemas/events/${major}/${type}.schema.json`);
      expect(schema.properties.type).toEqual({ const: type, description: expect.any(String) });
    }
  });

  it("refuse unknown properties at every level of every object", () => {
    for (const { file, schema } of schemaFiles) {
      for (const o of objects(schema)) expect({ file, path: o.path, additionalProperties: o.schema.additionalProperties }).toEqual({ file, path: o.path, additionalProperties: false });
    }
  });

  it("all carry the same envelope: schema_version, type, id, time, all required", () => {
    const envelopeOf = (s: Schema) => ({ schema_version: s.properties.schema_version, id: s.properties.id, time: s.properties.time });
    const first = envelopeOf(schemaFiles[0]!.schema);
    for (const { schema } of schemaFiles) {
      expect(envelopeOf(schema)).toEqual(first);
      expect(schema.required).toEqual(expect.arrayContaining(["schema_version", "type", "id", "time"]));
    }
    expect(first.schema_version.enum).toContain(EVENT_SCHEMA_VERSION);
  });

  it("compile under strict Ajv", () => {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, validateFormats: false });
    for (const { schema } of schemaFiles) expect(() => ajv.compile(schema)).not.toThrow();
  });

  it("are mirrored verbatim in abi/events/schemas.ts (run `node abi/events/generate.mjs` after editing one)", () => {
    const check = spawnSync(process.execPath, [join(eventsDir, "generate.mjs"), "--check"], { encoding: "utf8" });
    expect(check.stderr).toBe("");
    expect(check.status).toBe(0);
    for (const { major, file, schema } of schemaFiles) {
      expect((EVENT_SCHEMAS_BY_MAJOR as Record<string, Record<string, unknown>>)[major]![file.replace(".schema.json", "")]).toEqual(schema);
    }
  });

  it("name every hook point the pipeline has in hook.executed", () => {
    expect([...EVENT_SCHEMAS["hook.executed"].properties.point.enum].sort()).toEqual([...POINT_NAMES].sort());
  });

  it("refuse an event with an unknown field, a missing field, or an unknown type, saying which", () => {
    const [good] = JSON.parse(readFileSync(join(eventsDir, "examples/1.0/hook.executed.json"), "utf8")) as Schema[];
    expect(validateEvent(good)).toEqual({ ok: true });
    expect(validateEvent({ ...good, extra: 1 })).toMatchObject({ ok: false, problem: expect.stringContaining("additional properties") });
    const { binding_id: _dropped, ...missing } = good!;
    expect(validateEvent(missing)).toMatchObject({ ok: false, problem: expect.stringContaining("binding_id") });
    expect(validateEvent({ ...good, type: "agent.thought" })).toMatchObject({ ok: false, problem: expect.stringContaining("event.type must be one of") });
  });
});

describe("event versioning: additive evolution only", () => {
  const examplesDir = join(eventsDir, "examples");
  const versions = readdirSync(examplesDir);

  it("keeps a frozen example of every event kind", () => {
    const kinds = new Set(versions.flatMap((v) => readdirSync(join(examplesDir, v)).map((f) => f.replace(".json", ""))));
    expect([...kinds].sort()).toEqual([...EVENT_TYPES].sort());
  });

  it("every example ever written still validates under the newest schema of its kind", () => {
    let count = 0;
    for (const version of versions) {
      for (const file of readdirSync(join(examplesDir, version))) {
        for (const event of JSON.parse(readFileSync(join(examplesDir, version, file), "utf8")) as Schema[]) {
          expect(event.schema_version).toBe(version);
          expect(validateEvent(event)).toEqual({ ok: true });
          count++;
        }
      }
    }
    expect(count).toBeGreaterThanOrEqual(EVENT_TYPES.length);
  });

  it("a newer major only adds: no property removed, nothing newly required, no enum value dropped", () => {
    for (let i = 1; i < majors.length; i++) {
      const older = EVENT_SCHEMAS_BY_MAJOR[majors[i - 1] as keyof typeof EVENT_SCHEMAS_BY_MAJOR] as Record<string, Schema>;
      const newer = EVENT_SCHEMAS_BY_MAJOR[majors[i] as keyof typeof EVENT_SCHEMAS_BY_MAJOR] as Record<string, Schema>;
      for (const [type, old] of Object.entries(older)) {
        const now = newer[type];
        expect(now, `${majors[i]} drops ${type}`).toBeDefined();
        for (const [name, prop] of Object.entries(old.properties as Record<string, Schema>)) {
          expect(now!.properties[name], `${type}.${name} removed`).toBeDefined();
          if (prop.enum) expect(now!.properties[name].enum).toEqual(expect.arrayContaining(prop.enum));
        }
        expect(old.required).toEqual(expect.arrayContaining(now!.required));
      }
    }
  });
});
