/** Request and response schemas shared by the routes and the OpenAPI document. */
import { POINT_NAMES } from "../pipeline/points.js";
import { ref } from "./shapes/ref.js";

export const anyObject = { type: "object", additionalProperties: true } as const;

/** The standard error responses of a route, for the OpenAPI document. */
export function errorResponses(...statuses: number[]): Record<number, ReturnType<typeof ref<"ErrorBody">>> {
  return Object.fromEntries([401, ...statuses].map((s) => [s, ref("ErrorBody")]));
}

export const UPLOAD_BODY = {
  type: "object",
  additionalProperties: false,
  required: ["manifest", "wasm_base64"],
  properties: {
    manifest: { type: "string", description: "The text of hook.yaml." },
    wasm_base64: { type: "string", pattern: "^[A-Za-z0-9+/]*={0,2}$", description: "The module, base64-encoded." },
  },
} as const;

export const TEST_BODY = {
  type: "object",
  additionalProperties: false,
  required: ["point", "payload"],
  properties: {
    point: { type: "string", enum: POINT_NAMES },
    payload: anyObject,
    config: {},
    context: {
      type: "object",
      additionalProperties: false,
      properties: Object.fromEntries(["space_id", "instance_id", "purpose", "actor_id", "run_id", "call_id"].map((k) => [k, { type: "string" }])),
    },
  },
} as const;

export const ORDER_MODE = { type: "string", enum: ["staged", "symmetric"] } as const;

export const PUBLISH_BODY = {
  type: "object",
  additionalProperties: false,
  properties: {
    order_mode: ORDER_MODE,
    note: { type: "string", maxLength: 1000 },
    activate: { type: "boolean", description: "Activate the new revision at once." },
  },
} as const;

export const ROLLBACK_BODY = {
  type: ["object", "null"],
  additionalProperties: false,
  properties: { revision: { type: "integer", minimum: 1 } },
} as const;

export const ENABLE_BODY = {
  type: "object",
  additionalProperties: false,
  required: ["enabled"],
  properties: { enabled: { type: "boolean" } },
} as const;

export const ORDER_BODY = {
  type: "object",
  additionalProperties: false,
  required: ["order"],
  properties: {
    order: { type: "array", items: { type: "string" }, maxItems: 10_000, description: "Binding ids, first to last; unnamed bindings keep their order after these." },
    order_mode: ORDER_MODE,
  },
} as const;
