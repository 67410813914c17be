/**
 * The event schemas themselves: strict, versioned, in sync with their TypeScript mirror,
 * and never evolved except by addition (abi/events/README.md, "Versioning").
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { additiveProblems, EVENT_SCHEMAS, EVENT_SCHEMAS_BY_MAJOR, EVENT_SCHEMA_VERSION, EVENT_TYPES, openObjects, validateEvent, type EventMajor } from "../../abi/events/index.js";
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
      expect({ file, open: openObjects(schema) }).toEqual({ file, open: [] });
    }
  });

  it("all carry the same envelope: schema_version, type, id, time, all required", () => {
    const envelopeOf = (s: Schema) => ({ id: s.properties.id, time: s.properties.time });
    const first = envelopeOf(schemaFiles[0]!.schema);
    for (const { major, schema } of schemaFiles) {
      expect(envelopeOf(schema)).toEqual(first);
      expect(schema.required).toEqual(expect.arrayContaining(["schema_version", "type", "id", "time"]));
      // Each major writes its own version (v1: "1.0", v2: "2.0"), the last value of the enum.
      expect(schema.properties.schema_version.enum.at(-1)).toBe(`${major.slice(1)}.0`);
    }
    expect(EVENT_SCHEMA_VERSION).toBe(`${majors.at(-1)!.slice(1)}.0`);
  });

  it("from v2 on, name their own $id in $schema and carry the host's id (new kinds require it)", () => {
    for (const { major, file, schema } of schemaFiles.filter((f) => f.major !== "v1")) {
      expect(schema.properties.$schema.enum, file).toContain(schema.$id);
      expect(schema.required, file).not.toContain("$schema");
      expect(schema.properties.host_id, `${major}/${file}`).toEqual({ type: "string", minLength: 1, description: expect.any(String) });
      if (!(file.replace(".schema.json", "") in EVENT_SCHEMAS_BY_MAJOR.v1)) expect(schema.required, file).toContain("host_id");
    }
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
    expect(validateEvent({ ...good, type: "agent.daydream" })).toMatchObject({ ok: false, problem: expect.stringContaining("event.type must be one of") });
  });

  it("enforce formats: an impossible date-time in time, since or until and a malformed id are refused", () => {
    const read = (type: string) => (JSON.parse(readFileSync(join(eventsDir, `examples/2.0/${type}.json`), "utf8")) as Schema[])[0]!;
    const hook = read("hook.executed");
    const quarantined = read("plugin.quarantined");
    const lifted = read("plugin.quarantine_lifted");
    expect(validateEvent(hook)).toEqual({ ok: true });
    expect(validateEvent({ ...hook, time: "2026-02-31T25:61:61Z" })).toEqual({ ok: false, problem: 'hook.executed: event/time must match format "date-time"' });
    expect(validateEvent({ ...hook, time: "2026-02-28T23:59:59Z" })).toEqual({ ok: true });
    expect(validateEvent({ ...hook, time: "2026-02-29T12:00:00Z" })).toEqual({ ok: false, problem: 'hook.executed: event/time must match format "date-time"' });
    expect(validateEvent({ ...quarantined, since: "2026-02-31T25:61:61Z" })).toEqual({ ok: false, problem: 'plugin.quarantined: event/since must match format "date-time"' });
    expect(validateEvent({ ...quarantined, until: "2026-13-01T00:00:00Z" })).toEqual({ ok: false, problem: 'plugin.quarantined: event/until must match format "date-time"' });
    expect(validateEvent({ ...lifted, since: "2026-04-31T10:00:00Z" })).toEqual({ ok: false, problem: 'plugin.quarantine_lifted: event/since must match format "date-time"' });
    // The same holds for 1.0 events checked against v1.
    const old = (JSON.parse(readFileSync(join(eventsDir, "examples/1.0/hook.executed.json"), "utf8")) as Schema[])[0]!;
    expect(validateEvent({ ...old, time: "2026-02-31T25:61:61Z" }, "v1")).toEqual({ ok: false, problem: 'hook.executed: event/time must match format "date-time"' });
  });

  it("validate an event with the schema its $schema names, and refuse a $schema of another kind", () => {
    const hook = (JSON.parse(readFileSync(join(eventsDir, "examples/2.0/hook.executed.json"), "utf8")) as Schema[])[0]!;
    expect(validateEvent({ ...hook, $schema: EVENT_SCHEMAS["agent.error"].$id })).toEqual({
      ok: false, problem: `hook.executed: event.$schema must name a schema of hook.executed (https://sluice.dev/schemas/events/v1/hook.executed.schema.json, https://sluice.dev/schemas/events/v2/hook.executed.schema.json, https://sluice.dev/schemas/events/v3/hook.executed.schema.json, ${EVENT_SCHEMAS["hook.executed"].$id}), got "${EVENT_SCHEMAS["agent.error"].$id}"`,
    });
    // A v2 event checked against v1 fails: v1 does not know the fields v2 added.
    expect(validateEvent(hook, "v1")).toMatchObject({ ok: false, problem: expect.stringContaining("must NOT have additional properties") });
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

  it("every example of a version validates under every later major's schema of its kind, not only the newest", () => {
    let checked = 0;
    for (const version of versions) {
      const from = majors.indexOf(`v${version.split(".")[0]}`);
      expect(from).toBeGreaterThanOrEqual(0);
      for (const file of readdirSync(join(examplesDir, version))) {
        for (const event of JSON.parse(readFileSync(join(examplesDir, version, file), "utf8")) as Schema[]) {
          for (const major of majors.slice(from)) {
            expect({ version, file, major, check: validateEvent(event, major as EventMajor) }).toEqual({ version, file, major, check: { ok: true } });
            if (major !== majors[from]) checked++;
          }
        }
      }
    }
    // Real cross-version checks: every example of a version under each later major (1.0 under v2 and v3, 2.0 under v3).
    const examplesOf = (version: string) => readdirSync(join(examplesDir, version)).flatMap((f) => JSON.parse(readFileSync(join(examplesDir, version, f), "utf8")) as Schema[]);
    const later = (version: string) => majors.length - 1 - majors.indexOf(`v${version.split(".")[0]}`);
    expect(checked).toBe(versions.reduce((n, v) => n + examplesOf(v).length * later(v), 0));
    expect(checked).toBeGreaterThan(examplesOf("1.0").length);
    expect(checked).toBeGreaterThanOrEqual(Object.keys(EVENT_SCHEMAS_BY_MAJOR.v1).length);
  });

  it("a newer major takes nothing away at any depth (the structural check the registry applies to custom events too)", () => {
    expect(majors.length).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < majors.length; i++) {
      const older = EVENT_SCHEMAS_BY_MAJOR[majors[i - 1] as EventMajor] as Record<string, Schema>;
      const newer = EVENT_SCHEMAS_BY_MAJOR[majors[i] as EventMajor] as Record<string, Schema>;
      for (const [type, old] of Object.entries(older)) expect({ type, problems: additiveProblems(old, newer[type]!) }).toEqual({ type, problems: [] });
    }
  });

  it("the structural check finds what a change takes away", () => {
    const v1 = EVENT_SCHEMAS_BY_MAJOR.v1["hook.executed"] as unknown as Schema;
    const { binding_id: _gone, ...props } = v1.properties;
    const narrowed = { ...v1, required: [...v1.required, "extra"], properties: { ...props, outcome: { enum: ["continue"] }, call_id: { type: "string" } } };
    expect(additiveProblems(v1, narrowed)).toEqual([
      '#: "extra" newly required',
      "#/properties/binding_id: removed",
      ...v1.properties.outcome.enum.filter((v: string) => v !== "continue").map((v: string) => `#/properties/outcome: value "${v}" dropped`),
      '#/properties/call_id: type "null" dropped',
    ]);
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
