/**
 * Tool schemas of every draft a framework sends. The AI SDK, the OpenAI Agents SDK and MCP
 * produce JSON Schema marked draft-07 (zod's output); LangChain's is 2020-12; a schema
 * without `$schema` is read as 2020-12. Each draft gets its own Ajv instance, with the
 * standard formats (`email`, `uri`, `date-time`, ...) checked, so a schema means what its
 * author's tooling meant. A `$schema` the host does not know is refused at the entry
 * (PAYLOAD_INVALID, through the call's compile check), never thrown.
 */
import type { Ajv, ValidateFunction } from "ajv";
import { createRequire } from "node:module";
import { canonicalJson } from "../pipeline/canonical-json.js";

type Draft = "draft-06" | "draft-07" | "2019-09" | "2020-12";

/** `$schema` URIs by draft, with and without the trailing `#` and over http or https. */
function draftOf(uri: unknown): Draft | undefined {
  if (uri === undefined) return "2020-12";
  if (typeof uri !== "string") return undefined;
  const u = uri.replace(/^https?:\/\//, "").replace(/#$/, "");
  if (u === "json-schema.org/draft-07/schema") return "draft-07";
  if (u === "json-schema.org/draft-06/schema") return "draft-06";
  if (u === "json-schema.org/draft/2019-09/schema") return "2019-09";
  if (u === "json-schema.org/draft/2020-12/schema") return "2020-12";
  return undefined;
}

const options = { allErrors: true, strict: false, logger: false } as const;
const instances = new Map<Draft, Ajv>();
function ajvFor(draft: Draft): Ajv {
  let ajv = instances.get(draft);
  if (!ajv) {
    // Required per draft on first use, not imported: `import "sluice"` does not load Ajv.
    const require = createRequire(import.meta.url);
    ajv = draft === "2020-12" ? new (require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js")).Ajv2020(options) : draft === "2019-09" ? new (require("ajv/dist/2019.js") as typeof import("ajv/dist/2019.js")).Ajv2019(options) : new (require("ajv") as typeof import("ajv")).Ajv(options);
    // Read with require: importing JSON as a module still prints an experimental warning on Node 20.
    if (draft === "draft-06") ajv.addMetaSchema(require("ajv/dist/refs/json-schema-draft-06.json") as object);
    (require("ajv-formats") as typeof import("ajv-formats")).default(ajv);
    instances.set(draft, ajv);
  }
  return ajv;
}

const validators = new Map<string, ValidateFunction>();
// Services pass the same schema object call after call: look it up by identity first, and
// serialise it only the first time an object is seen. (A schema is fixed by its tool's
// revision; changing a schema object in place after using it is not supported.)
const byObject = new WeakMap<object, ValidateFunction>();

/** The compiled validator of a tool's schema, by its draft. Throws (for the entry check to report) when it does not compile. */
export function argumentsValidator(schema: Record<string, unknown>): ValidateFunction {
  let v = byObject.get(schema);
  if (v) return v;
  const draft = draftOf(schema.$schema);
  if (!draft) throw new Error(`$schema ${JSON.stringify(schema.$schema).slice(0, 120)} is not a JSON Schema draft the host knows (draft-06, draft-07, 2019-09, 2020-12)`);
  const key = `${draft}\u0000${canonicalJson(schema)}`;
  v = validators.get(key);
  if (!v) { v = ajvFor(draft).compile(schema); validators.set(key, v); }
  byObject.set(schema, v);
  return v;
}

/** The validator's errors as one line, with the arguments as the data's name. */
export function argumentsErrors(validate: ValidateFunction): string {
  return ajvFor("2020-12").errorsText(validate.errors, { dataVar: "arguments" });
}
