/**
 * The schema registry (abi/events/README.md): every schema an event may name, built-in (the
 * JSON files in abi/events/v<major>/) and registered by a service (custom events), each
 * under its own `$id`. An event is validated with the schema its `$schema` names, or with
 * the newest schema of its `type` when it names none (1.0 events).
 */
import type { Ajv2020, ValidateFunction } from "ajv/dist/2020.js";
import { createRequire } from "node:module";
import { additiveProblems, openObjects, type SchemaNode } from "./evolution.js";

/** The verdict on an event or a schema: ok, or the problem in words (no payload content). */
export type EventCheck = { ok: true } | { ok: false; problem: string };

/** The draft every event schema is written in. */
export const EVENT_SCHEMA_DRAFT = "https://json-schema.org/draft/2020-12/schema";
/** Where Sluice's own event schemas live; custom schemas must use their own namespace. */
export const SLUICE_EVENTS_NAMESPACE = "https://sluice.dev/schemas/events/";

const EVENT_NAME = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
const SCHEMA_VERSION = /^[0-9]+\.[0-9]+$/;
const ENVELOPE_REQUIRED = ["schema_version", "type", "id", "time"] as const;

/**
 * An Ajv that enforces `format` (RFC 3339 date-times with real calendar dates and clock
 * times, UUIDs): a pattern alone accepts "2026-02-31T25:61:61Z".
 */
export function eventAjv(): Ajv2020 {
  // Required when a registry is made, not imported: `import "sluice"` does not load Ajv.
  const require = createRequire(import.meta.url);
  const ajv = new (require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js")).Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  (require("ajv-formats") as typeof import("ajv-formats")).default(ajv, { mode: "full", formats: ["date-time", "uuid"] });
  return ajv;
}

interface Entry { schema: SchemaNode; validate?: ValidateFunction; builtIn: boolean }

/** The schemas events are checked against: Sluice's own and a service's custom ones, each under its `$id`. */
export class EventRegistry {
  private readonly ajv = eventAjv();
  private readonly byId = new Map<string, Entry>();
  /** Every version of each type, oldest first. */
  private readonly versions = new Map<string, string[]>();

  /** Adds Sluice's own schemas, trusted as published (the schema tests hold them to the rules). */
  addBuiltIn(schemas: readonly SchemaNode[]): void {
    for (const schema of schemas) this.add(schema, true);
  }

  /**
   * Registers a service's own event schema (abi/events/README.md, "Custom events"): draft 2020-12, its own `$id`,
   * `additionalProperties: false` at every level, `type` as a `const`, the envelope
   * (`schema_version`, `type`, `id`, `time`; `$schema` declared), and, when an earlier
   * version of the type is registered, additive to it: nothing removed, narrowed or newly
   * required, and every `examples` entry of every earlier version still valid.
   *
   * @example
   * const check = registry.register(summaryCompletedV1);
   * if (!check.ok) throw new Error(check.problem);
   */
  register(schema: SchemaNode): EventCheck {
    const problem = this.customProblem(schema);
    if (problem) return { ok: false, problem };
    this.add(schema, false);
    return { ok: true };
  }

  /** True when `type` has at least one schema. */
  has(type: string): boolean {
    return this.versions.has(type);
  }

  /** Every registered type. */
  types(): string[] {
    return [...this.versions.keys()];
  }

  /** The schema registered under `$id`. */
  schema(id: string): SchemaNode | undefined {
    return this.byId.get(id)?.schema;
  }

  /** The newest schema of `type`. */
  newest(type: string): SchemaNode | undefined {
    const ids = this.versions.get(type);
    return ids ? this.byId.get(ids.at(-1)!)!.schema : undefined;
  }

  /** True when `type` is one of Sluice's own kinds. */
  isBuiltIn(type: string): boolean {
    const ids = this.versions.get(type);
    return ids !== undefined && this.byId.get(ids[0]!)!.builtIn;
  }

  /**
   * Checks an event against the schema its `$schema` names, or, without one, the newest
   * schema of its type (or the one with `$id` = `schemaId`, when given).
   */
  validate(event: unknown, schemaId?: string): EventCheck {
    const type = typeof event === "object" && event !== null ? (event as { type?: unknown }).type : undefined;
    if (typeof type !== "string" || !this.versions.has(type)) {
      return { ok: false, problem: `event.type must be one of ${this.types().join(", ")}, got ${JSON.stringify(type)}` };
    }
    const named = (event as { $schema?: unknown }).$schema;
    const id = schemaId ?? (typeof named === "string" ? named : this.versions.get(type)!.at(-1)!);
    const entry = this.byId.get(id);
    if (!entry || (entry.schema.properties as Record<string, SchemaNode>).type!.const !== type) {
      return { ok: false, problem: `${type}: event.$schema must name a schema of ${type} (${this.versions.get(type)!.join(", ")}), got ${JSON.stringify(id)}` };
    }
    entry.validate ??= this.ajv.compile(entry.schema);
    return entry.validate(event) ? { ok: true } : { ok: false, problem: `${type}: ${this.ajv.errorsText(entry.validate.errors, { dataVar: "event" })}` };
  }

  private add(schema: SchemaNode, builtIn: boolean): void {
    const id = schema.$id as string;
    const type = (schema.properties as Record<string, SchemaNode>).type!.const as string;
    this.byId.set(id, { schema, builtIn });
    const list = this.versions.get(type) ?? [];
    list.push(id);
    this.versions.set(type, list);
  }

  private customProblem(schema: SchemaNode): string | null {
    const id = schema.$id;
    if (schema.$schema !== EVENT_SCHEMA_DRAFT) return `$schema must be "${EVENT_SCHEMA_DRAFT}"`;
    if (typeof id !== "string" || !URL.canParse(id)) return "$id must be an absolute URI that names the schema and its version (e.g. https://acme.example/schemas/summary.completed/v1.json)";
    if (id.startsWith(SLUICE_EVENTS_NAMESPACE)) return `$id ${id} is in Sluice's own namespace (${SLUICE_EVENTS_NAMESPACE}); use your own`;
    if (this.byId.has(id)) return `$id ${id} is already registered; a new version needs a new $id`;
    if (schema.type !== "object") return "type must be \"object\"";
    const open = openObjects(schema);
    if (open.length > 0) return `every object must say additionalProperties: false (open at ${open.join(", ")})`;
    const props = (schema.properties ?? {}) as Record<string, SchemaNode>;
    const type = props.type?.const;
    if (typeof type !== "string" || !EVENT_NAME.test(type)) return "properties.type must be a const naming the event, dotted lower case (e.g. \"summary.completed\")";
    if (this.isBuiltIn(type)) return `${type} is one of Sluice's own event types`;
    const versions = props.schema_version?.enum;
    if (!Array.isArray(versions) || versions.length === 0 || !versions.every((v) => typeof v === "string" && SCHEMA_VERSION.test(v))) return "properties.schema_version must be an enum of \"major.minor\" strings (the last one is what events are emitted under)";
    const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
    const missing = ENVELOPE_REQUIRED.filter((k) => !required.includes(k));
    if (missing.length > 0) return `required must include the envelope: ${missing.join(", ")}`;
    if (props.id?.type !== "string" || props.id.format !== "uuid") return "properties.id must be { type: \"string\", format: \"uuid\" } (the host fills it in)";
    if (props.time?.type !== "string" || props.time.format !== "date-time") return "properties.time must be { type: \"string\", format: \"date-time\" } (the host fills it in)";
    if (!Array.isArray(props.$schema?.enum) || !props.$schema.enum.includes(id)) return `properties.$schema must be an enum that contains the schema's own $id (${id}); the host fills it in`;
    try {
      eventAjv().compile(schema);
    } catch (err) {
      return `the schema does not compile under strict Ajv: ${(err as Error).message}`;
    }
    const earlier = (this.versions.get(type) ?? []).map((v) => this.byId.get(v)!.schema);
    const previous = earlier.at(-1);
    if (previous) {
      const taken = additiveProblems(previous, schema);
      if (taken.length > 0) return `${id} is not additive to ${String(previous.$id)}: ${taken.join("; ")}`;
      const check = eventAjv().compile(schema);
      for (const older of earlier) {
        for (const example of Array.isArray(older.examples) ? older.examples : []) {
          if (!check(example)) return `an example of ${String(older.$id)} fails ${id}: ${this.ajv.errorsText(check.errors, { dataVar: "event" })}`;
        }
      }
    }
    return null;
  }
}
