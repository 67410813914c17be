/**
 * Custom events (abi/events/README.md, "Versioning", §5.3): a service registers its own versioned schema
 * (own $id, closed objects, the envelope), evolves it only by addition (checked the
 * same way as Sluice's own majors), and emits through the same validated, isolated,
 * non-blocking bus. A consumer validates them from the published schemas alone.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createObserver, isSluiceError } from "../../host/index.js";
import { createEventRegistry, type CustomEvent } from "../../abi/events/index.js";

const V1 = "https://acme.example/schemas/summary.completed/v1.json";
const V2 = "https://acme.example/schemas/summary.completed/v2.json";
const envelope = {
  schema_version: { enum: ["1.0"] },
  type: { const: "summary.completed" },
  $schema: { enum: [V1] },
  id: { type: "string", format: "uuid" },
  time: { type: "string", format: "date-time" },
} as const;
const summaryV1 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: V1,
  title: "SummaryCompleted",
  type: "object",
  additionalProperties: false,
  required: ["schema_version", "type", "id", "time", "session_id", "summary_length"],
  properties: {
    ...envelope,
    session_id: { type: "string", minLength: 1 },
    summary_length: { type: "integer", minimum: 0 },
    metadata: { type: "object", additionalProperties: false, properties: { model: { type: "string" } } },
  },
  examples: [{ schema_version: "1.0", type: "summary.completed", $schema: V1, id: "0b7f3c2e-5a1d-4c8e-9f00-000000000001", time: "2026-12-01T09:00:00Z", session_id: "s1", summary_length: 120 }],
} as const;
// v2 adds an optional field, a schema_version value and its own $id; v1 data stays valid.
const summaryV2 = {
  ...summaryV1,
  $id: V2,
  properties: { ...summaryV1.properties, schema_version: { enum: ["1.0", "2.0"] }, $schema: { enum: [V1, V2] }, compression_ratio: { type: "number", minimum: 0 } },
  examples: [],
} as const;

const observers: ReturnType<typeof createObserver>[] = [];
function observer() {
  const o = createObserver({ report: () => {} });
  observers.push(o);
  return o;
}
afterEach(async () => { for (const o of observers.splice(0)) await o.flush(); });

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (isSluiceError(err)) return `${err.code}: ${err.message}`;
    throw err;
  }
  return "not refused";
}

describe("custom events", () => {
  it("are validated, completed with the envelope and their $schema, frozen and delivered on a later turn to onCustom listeners only", async () => {
    const o = observer();
    const summary = o.defineEvent(summaryV1);
    const custom: CustomEvent[] = [];
    const builtIn: unknown[] = [];
    o.onCustom((e) => { custom.push(e); });
    o.on((e) => { builtIn.push(e); });
    expect(summary.emit({ session_id: "s1", summary_length: 120, metadata: { model: "m" } })).toEqual({ ok: true });
    expect(custom).toEqual([]); // not inside the emitting call
    await o.flush();
    expect(custom).toEqual([{ session_id: "s1", summary_length: 120, metadata: { model: "m" }, schema_version: "1.0", type: "summary.completed", $schema: V1, id: expect.any(String), time: expect.any(String) }]);
    expect(Object.isFrozen(custom[0]) && Object.isFrozen(custom[0]!.metadata)).toBe(true);
    expect(builtIn).toEqual([]);
    expect(summary.type).toBe("summary.completed");
    expect(summary.schemaId).toBe(V1);
  });

  it("whose fields fail the schema come back as CUSTOM_EVENT_INVALID and reach no listener; the envelope cannot be forged", async () => {
    const o = observer();
    const summary = o.defineEvent(summaryV1);
    const custom: CustomEvent[] = [];
    o.onCustom((e) => { custom.push(e); });
    const bad = summary.emit({ session_id: "s1", summary_length: -1 } as never);
    expect(bad).toEqual({ ok: false, error: { code: "CUSTOM_EVENT_INVALID", message: `the summary.completed event fails its schema ${V1}: summary.completed: event/summary_length must be >= 0`, details: { type: "summary.completed", schema: V1 } } });
    expect(summary.emit({ session_id: "s1", summary_length: 1, extra: true } as never)).toMatchObject({ ok: false, error: { code: "CUSTOM_EVENT_INVALID" } });
    expect(summary.emit({ session_id: "s1", summary_length: 1, type: "agent.error", id: "forged" } as never)).toEqual({ ok: true });
    await o.flush();
    expect(custom.map((e) => [e.type, e.id === "forged"])).toEqual([["summary.completed", false]]);
  });

  it("a throwing custom listener is isolated: the others still get the event, the emitter never sees the error", async () => {
    const o = observer();
    const summary = o.defineEvent(summaryV1);
    const seen: string[] = [];
    o.onCustom(() => { throw new Error("listener bug"); });
    o.onCustom((e) => { seen.push(e.type); }, ["summary.completed"]);
    o.onCustom((e) => { seen.push(`other ${e.type}`); }, ["report.exported"]);
    expect(summary.emit({ session_id: "s1", summary_length: 1 })).toEqual({ ok: true });
    await o.flush();
    expect(seen).toEqual(["summary.completed"]);
    const errors = await o.registry.getSingleMetric("sluice_event_listener_errors_total")!.get();
    expect(errors.values).toEqual([expect.objectContaining({ labels: { type: "summary.completed" }, value: 1 })]);
  });

  it("evolve additively: v2 is accepted, v1 events still validate under it, and each emitter writes its own version", async () => {
    const o = observer();
    const v1 = o.defineEvent(summaryV1);
    const v2 = o.defineEvent(summaryV2);
    const got: CustomEvent[] = [];
    o.onCustom((e) => { got.push(e); });
    v1.emit({ session_id: "s1", summary_length: 1 });
    v2.emit({ session_id: "s2", summary_length: 2, compression_ratio: 4.5 });
    await o.flush();
    expect(got.map((e) => [e.schema_version, e.$schema])).toEqual([["1.0", V1], ["2.0", V2]]);
    // A consumer registers the published schemas and validates both, each by its $schema, and the v1 one under v2 too.
    const consumer = createEventRegistry();
    expect(consumer.register(summaryV1)).toEqual({ ok: true });
    expect(consumer.register(summaryV2)).toEqual({ ok: true });
    expect(got.map((e) => consumer.validate(e))).toEqual([{ ok: true }, { ok: true }]);
    expect(consumer.validate(got[0], V2)).toEqual({ ok: true });
    expect(consumer.validate(got[1], V1)).toMatchObject({ ok: false });
    const { $schema: _named, ...unnamed } = got[0]!;
    expect(consumer.validate(unnamed)).toEqual({ ok: true }); // no $schema: the newest version of its type
  });

  it("a version that takes something away is refused with EVENT_SCHEMA_INVALID, saying what", () => {
    const o = observer();
    o.defineEvent(summaryV1);
    const { metadata: _dropped, ...props } = summaryV2.properties;
    expect(refusal(() => o.defineEvent({ ...summaryV2, properties: props }))).toBe(`EVENT_SCHEMA_INVALID: event schema ${V2} refused: ${V2} is not additive to ${V1}: #/properties/metadata: removed`);
    expect(refusal(() => o.defineEvent({ ...summaryV2, required: [...summaryV2.required, "compression_ratio"] }))).toBe(`EVENT_SCHEMA_INVALID: event schema ${V2} refused: ${V2} is not additive to ${V1}: #: "compression_ratio" newly required`);
    expect(refusal(() => o.defineEvent({ ...summaryV2, properties: { ...summaryV2.properties, $schema: { enum: [V2] } } }))).toBe(`EVENT_SCHEMA_INVALID: event schema ${V2} refused: ${V2} is not additive to ${V1}: #/properties/$schema: value "${V1}" dropped`);
    // Narrowed in a way the structure does not show: v1's frozen example catches it.
    const narrowed = { ...summaryV2, properties: { ...summaryV2.properties, summary_length: { type: "integer", minimum: 500 } } };
    expect(refusal(() => o.defineEvent(narrowed))).toBe(`EVENT_SCHEMA_INVALID: event schema ${V2} refused: an example of ${V1} fails ${V2}: event/summary_length must be >= 500`);
  });

  it("a schema that breaks the registry's rules is refused, naming the rule", () => {
    const o = observer();
    const cases: [Record<string, unknown>, string][] = [
      [{ ...summaryV1, $schema: "http://json-schema.org/draft-07/schema#" }, '$schema must be "https://json-schema.org/draft/2020-12/schema"'],
      [{ ...summaryV1, $id: "summary.completed" }, "$id must be an absolute URI that names the schema and its version (e.g. https://acme.example/schemas/summary.completed/v1.json)"],
      [{ ...summaryV1, $id: "https://sluice.dev/schemas/events/v9/summary.completed.schema.json" }, "$id https://sluice.dev/schemas/events/v9/summary.completed.schema.json is in Sluice's own namespace (https://sluice.dev/schemas/events/); use your own"],
      [{ ...summaryV1, additionalProperties: true }, "every object must say additionalProperties: false (open at #)"],
      [{ ...summaryV1, properties: { ...summaryV1.properties, metadata: { type: "object", properties: { model: { type: "string" } } } } }, "every object must say additionalProperties: false (open at #/properties/metadata)"],
      [{ ...summaryV1, properties: { ...summaryV1.properties, type: { const: "Summary" } } }, 'properties.type must be a const naming the event, dotted lower case (e.g. "summary.completed")'],
      [{ ...summaryV1, properties: { ...summaryV1.properties, type: { const: "tool.invocation.completed" } } }, "tool.invocation.completed is one of Sluice's own event types"],
      [{ ...summaryV1, required: ["type", "id", "time"] }, "required must include the envelope: schema_version"],
      [{ ...summaryV1, properties: { ...summaryV1.properties, time: { type: "string" } } }, 'properties.time must be { type: "string", format: "date-time" } (the host fills it in)'],
      [{ ...summaryV1, properties: { ...summaryV1.properties, $schema: { type: "string" } } }, `properties.$schema must be an enum that contains the schema's own $id (${V1}); the host fills it in`],
    ];
    for (const [schema, problem] of cases) expect(refusal(() => o.defineEvent(schema as never))).toBe(`EVENT_SCHEMA_INVALID: event schema ${String(schema.$id)} refused: ${problem}`);
    o.defineEvent(summaryV1);
    expect(refusal(() => o.defineEvent(summaryV1))).toBe(`EVENT_SCHEMA_INVALID: event schema ${V1} refused: $id ${V1} is already registered; a new version needs a new $id`);
  });

  it("the registry enforces formats on custom events as on Sluice's own", () => {
    const consumer = createEventRegistry();
    consumer.register(summaryV1);
    const event = { ...summaryV1.examples[0] };
    expect(consumer.validate(event)).toEqual({ ok: true });
    expect(consumer.validate({ ...event, time: "2026-02-31T25:61:61Z" })).toEqual({ ok: false, problem: 'summary.completed: event/time must match format "date-time"' });
  });
});
