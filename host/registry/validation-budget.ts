/**
 * A work budget for one config check. Static limits (schema-limits.ts) bound the schema and
 * the config separately, but the work of a check is closer to their product: a schema of a
 * few thousand subschemas applied to each of ten thousand values, or dozens of patterns
 * over a long string, can still take seconds. So the schema Ajv compiles is instrumented:
 * every subschema carries a `$comment` holding its weight (its own keywords' size), Ajv
 * calls {@link chargeComment} each time it applies that subschema to a value, and the
 * regular-expression engine charges for the text it scans. Past the budget the check
 * stops with PLUGIN_CONFIG_INVALID; it never runs for longer than the budget's worth.
 */
import { SluiceError } from "../errors/sluice-error.js";

/** Units of work one config check may use: about 10-50 ms of the main thread at worst on this project's 2-vCPU machines (measured with schemas built to exhaust it). */
export const CHECK_BUDGET = 200_000;

class BudgetExceeded extends Error {}

let spent = 0;
let active = false;

/** Adds `units` to the running check's spend; throws once it is over budget. */
export function charge(units: number): void {
  if (!active) return;
  spent += units;
  if (spent > CHECK_BUDGET) throw new BudgetExceeded();
}

/** Ajv's `$comment` option: each instrumented subschema's comment is its weight. */
export function chargeComment(comment: string): void {
  charge(Number(comment) || 1);
}

/** Runs one check under the budget; PLUGIN_CONFIG_INVALID when it runs out. */
export function withinBudget<T>(ref: string, check: () => T): T {
  spent = 0;
  active = true;
  try {
    return check();
  } catch (err) {
    if (err instanceof BudgetExceeded) {
      throw new SluiceError("PLUGIN_CONFIG_INVALID", `config for ${ref} needs more work to check against its config_schema than a binding write may use; simplify the config or the schema`, { ref, limit: "work", max: CHECK_BUDGET });
    }
    throw err;
  } finally {
    active = false;
  }
}

const SCHEMA_VALUED = new Set(["items", "additionalItems", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties"]);
const SCHEMA_ARRAYS = new Set(["allOf", "anyOf", "oneOf", "prefixItems", "items"]);
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/**
 * A copy of `schema` whose every subschema has `$comment` set to its weight: 1 plus a unit
 * per 8 characters of its own keyword values (a long `required` or `enum` costs more per
 * application than a `type`). An author's own `$comment` is replaced.
 */
export function instrument(schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
  const copy: Record<string, unknown> = {};
  let own = 0;
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$comment") continue;
    if (SCHEMA_VALUED.has(key) && typeof value === "object" && value !== null && !Array.isArray(value)) copy[key] = instrument(value);
    else if (SCHEMA_ARRAYS.has(key) && Array.isArray(value)) copy[key] = value.map(instrument);
    else if (SCHEMA_MAPS.has(key) && typeof value === "object" && value !== null && !Array.isArray(value)) {
      copy[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, instrument(v)]));
      own += Object.keys(value).length;
    } else {
      copy[key] = value;
      own += JSON.stringify(value)?.length ?? 1;
    }
  }
  copy.$comment = String(1 + Math.ceil(own / 8));
  return copy;
}
