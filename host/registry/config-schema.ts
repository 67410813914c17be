/**
 * Plugin config schemas: compiled once per distinct schema, checked when a manifest is
 * uploaded (a schema that does not compile is a bad manifest) and when a binding is
 * written (a config that fails it is refused before anything is stored).
 *
 * The schema is written by the plugin's author, whom the operator does not fully trust,
 * and the check runs on the main thread: patterns run on a linear-time engine
 * (linear-regexp.ts), schema and config are held to static limits (schema-limits.ts)
 * before Ajv sees them, and each check runs under a work budget (validation-budget.ts),
 * so no schema can make a binding write stall the process.
 */
import { createRequire } from "node:module";
import type { Ajv2020, ValidateFunction } from "ajv/dist/2020.js";
import { canonicalJson } from "../pipeline/canonical-json.js";
import { SluiceError } from "../errors/sluice-error.js";
import { linearRegExp } from "./linear-regexp.js";
import { explainErrors, problemsText } from "./validation-message.js";
import { checkConfigLimits, checkSchemaLimits, withScalarItemTypes } from "./schema-limits.js";
import { chargeComment, instrument, withinBudget } from "./validation-budget.js";

// addUsedSchema: false, so two plugins whose schemas share an $id do not collide; remote
// $refs are never fetched (no loadSchema), they just fail to compile. allErrors: false: the
// first error is reported, and a failing check stops there instead of building an error
// object per value (ten times the work on a hostile config). logger: false, so an
// author's unknown formats do not write to the operator's console.
// Made on the first config schema: a command or process that checks none does not load Ajv.
let ajv: Ajv2020 | undefined;
function ajvOf(): Ajv2020 {
  ajv ??= new (createRequire(import.meta.url)("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js")).Ajv2020({ allErrors: false, strict: false, addUsedSchema: false, allowUnionTypes: true, logger: false, code: { regExp: linearRegExp }, $comment: chargeComment });
  return ajv;
}
const cache = new Map<string, ValidateFunction>();
const CACHE_MAX = 256;

/** Compiles a config schema; throws MANIFEST_INVALID when it is not a usable JSON Schema or exceeds the limits. */
export function compileConfigSchema(schema: unknown): ValidateFunction {
  checkSchemaLimits(schema);
  const key = canonicalJson(schema);
  let validate = cache.get(key);
  if (validate) return validate;
  try {
    validate = ajvOf().compile(instrument(withScalarItemTypes(schema)) as object);
  } catch (err) {
    throw new SluiceError("MANIFEST_INVALID", `config_schema is not a usable JSON Schema (draft 2020-12, patterns in RE2 syntax: no lookaround or backreferences): ${(err as Error).message}`, { field: "config_schema" });
  }
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(key, validate);
  return validate;
}

/** Throws PLUGIN_CONFIG_INVALID, listing Ajv's errors, unless `config` passes `schema`. */
export function checkConfig(schema: unknown, config: unknown, ref: string): void {
  checkConfigLimits(config, ref);
  const validate = compileConfigSchema(schema);
  if (withinBudget(ref, () => validate(config))) return;
  const errors = explainErrors(validate.errors?.slice(0, 20), config, schema);
  throw new SluiceError("PLUGIN_CONFIG_INVALID", `config does not match the config_schema of ${ref}: ${problemsText(errors)}`, { ref, errors });
}
