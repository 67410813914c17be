import type { Ajv2020, ValidateFunction } from "ajv/dist/2020.js";
import { createRequire } from "node:module";
import { getPoint, type PointName } from "./points.js";
import { fail, OK, type Checked } from "./result.js";

// One Ajv per thread, built on first use: a worker that never validates pays nothing.
let ajv: Ajv2020 | undefined;
const compiled = new Map<PointName, ValidateFunction>();

/** The compiled schema validator of a point; compiled once per thread, on first use. */
export function payloadValidator(point: PointName): ValidateFunction {
  let validate = compiled.get(point);
  if (!validate) {
    // Required here, not imported: `import "sluice"` does not load Ajv.
    ajv ??= new (createRequire(import.meta.url)("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js")).Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
    validate = ajv.compile(getPoint(point).schema);
    compiled.set(point, validate);
  }
  return validate;
}

/** Ajv's explanation of why `payload` fails the point's schema, or null when it passes. */
export function schemaProblem(point: PointName, payload: unknown): string | null {
  const validate = payloadValidator(point);
  if (validate(payload)) return null;
  return ajv!.errorsText(validate.errors, { dataVar: "payload" });
}

/**
 * Checks a payload at the boundary, before any hook sees it.
 * @example validatePayload("tool.before", payload) // { ok: true } or PAYLOAD_INVALID
 */
export function validatePayload(point: PointName, payload: unknown): Checked {
  const problem = schemaProblem(point, payload);
  return problem === null ? OK : fail("PAYLOAD_INVALID", `${point} payload is invalid: ${problem}`, { point, field: firstField(payloadValidator(point)) });
}

/** The JSON Pointer of the first wrong field in the payload (a missing one included), so events can name it without the payload's text. */
function firstField(validate: ValidateFunction): string {
  const first = validate.errors?.[0];
  if (!first) return "";
  const missing = first.keyword === "required" ? `/${String(first.params.missingProperty)}` : "";
  return `${first.instancePath}${missing}`;
}
