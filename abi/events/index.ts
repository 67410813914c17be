/**
 * The event contract of Sluice, for the host and for any service that consumes its events
 * (`import { validateEvent } from "sluice/events"`). The JSON Schemas in
 * `abi/events/v<major>/` are the single source; the types below derive from them.
 * Rules and the event catalogue: abi/events/README.md.
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import type { FromSchema } from "../../host/pipeline/schema-types.js";
import { EVENT_SCHEMAS_BY_MAJOR } from "./schemas.js";

export { EVENT_SCHEMAS_BY_MAJOR };

type Majors = typeof EVENT_SCHEMAS_BY_MAJOR;
type Latest = Majors["v1"];

/** The schemas events are validated with now: the newest major of each kind. */
export const EVENT_SCHEMAS: Latest = EVENT_SCHEMAS_BY_MAJOR.v1;

/** Every event kind the contract defines. */
export type EventType = keyof Latest;
export const EVENT_TYPES = Object.keys(EVENT_SCHEMAS) as EventType[];

/** The `schema_version` this host writes into every event it emits. */
export const EVENT_SCHEMA_VERSION = "1.0" as const;

/** One event of kind `T`, as its schema describes it. */
export type EventOf<T extends EventType> = FromSchema<Latest[T]>;

/** Any event. Narrow it on `type`. */
export type SluiceEvent = { [T in EventType]: EventOf<T> }[EventType];

/** The fields an emitter provides; the envelope (schema_version, type, id, time) is filled in. */
export type EventFields<T extends EventType> = Omit<EventOf<T>, "schema_version" | "type" | "id" | "time">;

export type EventCheck = { ok: true } | { ok: false; problem: string };

let ajv: Ajv2020 | undefined;
const validators = new Map<string, ValidateFunction>();

function validatorOf(schema: object, key: string): ValidateFunction {
  let v = validators.get(key);
  if (!v) {
    // Formats (uuid, date-time) are annotations here: each has a pattern that enforces it,
    // so consumers without a format plugin get the same answer.
    ajv ??= new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true, validateFormats: false });
    v = ajv.compile(schema);
    validators.set(key, v);
  }
  return v;
}

/**
 * Checks an event against the newest schema of its kind (or of `major`, e.g. "v1").
 *
 * @example
 * const check = validateEvent(JSON.parse(message));
 * if (!check.ok) console.warn(`dropping event: ${check.problem}`);
 */
export function validateEvent(event: unknown, major: keyof Majors = "v1"): EventCheck {
  const type = typeof event === "object" && event !== null ? (event as { type?: unknown }).type : undefined;
  const schemas = EVENT_SCHEMAS_BY_MAJOR[major] as Record<string, object>;
  if (typeof type !== "string" || !Object.hasOwn(schemas, type)) {
    return { ok: false, problem: `event.type must be one of ${Object.keys(schemas).join(", ")}, got ${JSON.stringify(type)}` };
  }
  const validate = validatorOf(schemas[type]!, `${major}/${type}`);
  return validate(event) ? { ok: true } : { ok: false, problem: `${type}: ${ajv!.errorsText(validate.errors, { dataVar: "event" })}` };
}

/** Type guard form of {@link validateEvent}. */
export function isEvent(event: unknown): event is SluiceEvent {
  return validateEvent(event).ok;
}
