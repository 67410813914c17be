/**
 * Plugin config schemas: compiled once per distinct schema, checked when a manifest is
 * uploaded (a schema that does not compile is a bad manifest) and when a binding is
 * written (a config that fails it is refused before anything is stored).
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { canonicalJson } from "../pipeline/canonical-json.js";
import { SluiceError } from "../errors/sluice-error.js";

// addUsedSchema: false, so two plugins whose schemas share an $id do not collide; remote
// $refs are never fetched (no loadSchema), they just fail to compile.
const ajv = new Ajv2020({ allErrors: true, strict: false, addUsedSchema: false, allowUnionTypes: true });
const cache = new Map<string, ValidateFunction>();
const CACHE_MAX = 256;

/** Compiles a config schema; throws MANIFEST_INVALID when it is not a usable JSON Schema. */
export function compileConfigSchema(schema: unknown): ValidateFunction {
  const key = canonicalJson(schema);
  let validate = cache.get(key);
  if (validate) return validate;
  try {
    validate = ajv.compile(schema as object);
  } catch (err) {
    throw new SluiceError("MANIFEST_INVALID", `config_schema is not a usable JSON Schema (draft 2020-12): ${(err as Error).message}`, { field: "config_schema" });
  }
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(key, validate);
  return validate;
}

/** Throws PLUGIN_CONFIG_INVALID, listing Ajv's errors, unless `config` passes `schema`. */
export function checkConfig(schema: unknown, config: unknown, ref: string): void {
  const validate = compileConfigSchema(schema);
  if (validate(config)) return;
  const errors = (validate.errors ?? []).map((e) => ({ path: e.instancePath || "/", message: e.message ?? "is invalid" }));
  throw new SluiceError("PLUGIN_CONFIG_INVALID", `config does not match the config_schema of ${ref}: ${ajv.errorsText(validate.errors, { dataVar: "config" })}`, { ref, errors });
}
