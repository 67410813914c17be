/**
 * The event contract of Sluice, for the host and for any service that consumes its events
 * (`import { validateEvent } from "sluice/events"`). The JSON Schemas in
 * `abi/events/v<major>/` are the single source; the types below derive from them.
 * Rules and the event catalogue: abi/events/README.md.
 */
import type { FromSchema } from "../schema-types.js";
import { EventRegistry, type EventCheck } from "./registry.js";
import type { SchemaNode } from "./evolution.js";
import { EVENT_SCHEMAS_BY_MAJOR } from "./schemas.js";

export { EVENT_SCHEMAS_BY_MAJOR };
export { EventRegistry, eventAjv, EVENT_SCHEMA_DRAFT, SLUICE_EVENTS_NAMESPACE, type EventCheck } from "./registry.js";
export { additiveProblems, openObjects, type SchemaNode } from "./evolution.js";

type Majors = typeof EVENT_SCHEMAS_BY_MAJOR;
/** A major version of the contract ("v1", "v2"). */
export type EventMajor = keyof Majors;
type Latest = Majors["v4"];

/** The schemas events are emitted under now: the newest major of each kind. */
export const EVENT_SCHEMAS: Latest = EVENT_SCHEMAS_BY_MAJOR.v4;

/** Every event kind the contract defines. */
export type EventType = keyof Latest;
/** Every event kind of the newest contract, as a list. */
export const EVENT_TYPES = Object.keys(EVENT_SCHEMAS) as EventType[];

/** The `schema_version` this host writes into every event it emits. */
export const EVENT_SCHEMA_VERSION = "4.0" as const;

/** The `$id` of the newest schema of a kind: what an event's `$schema` names. */
export function eventSchemaId<T extends EventType>(type: T): Latest[T]["$id"] {
  return EVENT_SCHEMAS[type].$id;
}

/** One event of kind `T`, as its schema describes it. */
export type EventOf<T extends EventType> = FromSchema<Latest[T]>;

/** Any event. Narrow it on `type`. */
export type SluiceEvent = { [T in EventType]: EventOf<T> }[EventType];

/** The envelope the bus fills in on every event. */
export type EnvelopeField = "schema_version" | "type" | "$schema" | "id" | "time";

/** The fields an emitter provides; the envelope (schema_version, type, $schema, id, time) is filled in. */
export type EventFields<T extends EventType> = Omit<EventOf<T>, EnvelopeField>;

/** An event of a type a service registered (see {@link EventRegistry.register}). */
export type CustomEvent = { readonly schema_version: string; readonly type: string; readonly $schema: string; readonly id: string; readonly time: string; readonly [field: string]: unknown };

/** A registry that knows every built-in schema of every major; add a service's own with `register`. */
export function createEventRegistry(): EventRegistry {
  const registry = new EventRegistry();
  registry.addBuiltIn(Object.values(EVENT_SCHEMAS_BY_MAJOR).flatMap((kinds) => Object.values(kinds) as SchemaNode[]));
  return registry;
}

let builtIn: EventRegistry | undefined;

/**
 * Checks an event against the schema its `$schema` names, or (1.0 events name none) the
 * newest schema of its kind; `major` (e.g. "v1") picks that major's schema instead.
 * Formats are enforced: `time` must be a real RFC 3339 date-time, `id` a UUID.
 *
 * @example
 * const check = validateEvent(JSON.parse(message));
 * if (!check.ok) console.warn(`dropping event: ${check.problem}`);
 */
export function validateEvent(event: unknown, major?: EventMajor): EventCheck {
  builtIn ??= createEventRegistry();
  if (major === undefined) return builtIn.validate(event);
  const type = typeof event === "object" && event !== null ? (event as { type?: unknown }).type : undefined;
  const schemas = EVENT_SCHEMAS_BY_MAJOR[major] as Record<string, { $id: string }>;
  if (typeof type !== "string" || !Object.hasOwn(schemas, type)) {
    return { ok: false, problem: `event.type must be one of ${Object.keys(schemas).join(", ")}, got ${JSON.stringify(type)}` };
  }
  return builtIn.validate(event, schemas[type]!.$id);
}

/** Type guard form of {@link validateEvent}. */
export function isEvent(event: unknown): event is SluiceEvent {
  return validateEvent(event).ok;
}
