/**
 * The JSON Schema of a binding as clients write it: the API's request body, and (without
 * hook_ref) an entry of hook.yaml's `bindings` section. Apart from binding-input.ts so the
 * manifest can use it without importing the registry's records.
 */
import { POINT_NAMES, PURPOSES } from "../pipeline/points.js";
import { HOST_MAX_LIMITS } from "../sandbox/limits.js";

const strings = { type: "array", items: { type: "string", minLength: 1, maxLength: 256 }, maxItems: 256, uniqueItems: true } as const;

/** JSON Schema of a binding in requests (also served in the OpenAPI document). */
export const BINDING_INPUT_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["id", "hook_ref", "point"],
  properties: {
    id: { type: "string", description: "Unique binding id, e.g. orders-limit." },
    hook_ref: { type: "string", description: "plugin-id@version, e.g. order-search-limit@1.0.0" },
    point: { enum: POINT_NAMES },
    match: {
      type: "object",
      additionalProperties: false,
      description: "Each present filter must contain the call's value; absent filters match anything.",
      properties: {
        purposes: { type: "array", items: { enum: PURPOSES }, uniqueItems: true },
        tool_ids: strings,
        model_ids: strings,
        instances: { type: "array", items: { enum: ["main", "child"] }, uniqueItems: true },
        instance_ids: { ...strings, description: "Particular instances by id; `*` matches any run of characters, e.g. researcher-*." },
        spaces: strings,
      },
    },
    priority: { type: "integer", minimum: -1_000_000, maximum: 1_000_000, description: "Lower runs first. Default 100." },
    timeout_ms: { type: "integer", minimum: 1, maximum: HOST_MAX_LIMITS.timeoutMs, description: "Default 1000; never above the plugin's time limit." },
    failure_policy: { enum: ["fail-closed", "fail-open"], description: "Default: the manifest's failure_policy." },
    observe_only: { type: "boolean" },
    config: { description: "Validated against the plugin's config_schema. Default {}." },
    enabled: { type: "boolean", description: "A disabled binding keeps its place in the order but is skipped." },
    mandatory: { type: "boolean", description: "A platform rule: cannot be disabled; runs first and again on the final payload when a later hook changed it (last at model.chat.chunk)." },
    extension: { type: "string", pattern: "^[a-z0-9][a-z0-9._-]{0,63}$", description: "Extension id: bindings at a before point and its after/chunk points that share it are one pre/post pair (carry, symmetric unwinding). Default: a plugin bound once per point pairs by its hook_ref." },
  },
} as const;
