/**
 * A binding as a client writes it, checked once into a complete {@link BindingSpec}:
 * shape by JSON Schema, then what only the plugin can say (its points and config schema).
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import { SluiceError } from "../errors/sluice-error.js";
import type { BindingMatch } from "../pipeline/bindings.js";
import type { BindingInput } from "../pipeline/release.js";
import { POINT_NAMES, PURPOSES } from "../pipeline/points.js";
import { HOST_MAX_LIMITS } from "../sandbox/limits.js";
import { checkConfig } from "./config-schema.js";
import { checkBindingId, parseHookRef } from "./ids.js";
import { explainErrors, problemsText } from "./validation-message.js";
import type { BindingSpec, MatchSpec, PluginRecord, ReleaseBinding } from "./records.js";

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

const validateShape = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true }).compile(BINDING_INPUT_SCHEMA);

/** Checks `input` against the schema and the plugin it refers to; `find` looks plugins up. */
export function resolveBindingInput(input: unknown, find: (id: string, version: string) => PluginRecord | undefined): BindingSpec {
  if (!validateShape(input)) {
    const errors = explainErrors(validateShape.errors, input, BINDING_INPUT_SCHEMA);
    throw new SluiceError("BINDING_INVALID", `binding: ${problemsText(errors)}`, { errors });
  }
  const b = input as Partial<BindingSpec> & Pick<BindingSpec, "id" | "hook_ref" | "point">;
  checkBindingId(b.id);
  const { id, version } = parseHookRef(b.hook_ref);
  const plugin = find(id, version);
  if (!plugin) throw new SluiceError("PLUGIN_NOT_FOUND", `binding ${b.id} refers to ${b.hook_ref}, which is not uploaded; upload it first (sluice upload)`, { hook_ref: b.hook_ref });
  const declared = Object.keys(plugin.manifest.points);
  if (!declared.includes(b.point)) {
    throw new SluiceError("BINDING_INVALID", `binding ${b.id}: ${b.hook_ref} does not declare the point ${b.point} in its manifest (it declares ${declared.join(", ")})`, { field: "point", binding: b.id });
  }
  const config = b.config ?? {};
  checkConfig(plugin.manifest.config_schema, config, b.hook_ref);
  return {
    id: b.id,
    hook_ref: `${id}@${version}`,
    point: b.point,
    match: { ...(b.match ?? {}) },
    priority: b.priority ?? 100,
    timeout_ms: b.timeout_ms ?? 1000,
    failure_policy: b.failure_policy ?? plugin.manifest.failure_policy,
    observe_only: b.observe_only ?? false,
    config,
    enabled: b.enabled ?? true,
    mandatory: b.mandatory ?? false,
    ...(b.extension !== undefined ? { extension: b.extension } : {}),
  };
}

function matchOf(m: MatchSpec): BindingMatch {
  return {
    ...(m.purposes ? { purposes: m.purposes } : {}),
    ...(m.tool_ids ? { toolIds: m.tool_ids } : {}),
    ...(m.model_ids ? { modelIds: m.model_ids } : {}),
    ...(m.instances ? { instances: m.instances } : {}),
    ...(m.instance_ids ? { instanceIds: m.instance_ids } : {}),
    ...(m.spaces ? { spaces: m.spaces } : {}),
  };
}

/** The host's view of a frozen binding. */
export function toHostBinding(b: ReleaseBinding | BindingSpec): BindingInput {
  return {
    id: b.id, hookRef: b.hook_ref, point: b.point, match: matchOf(b.match), priority: b.priority, timeoutMs: b.timeout_ms,
    failurePolicy: b.failure_policy, observeOnly: b.observe_only, config: b.config, enabled: b.enabled, mandatory: b.mandatory,
    ...(b.extension !== undefined ? { extension: b.extension } : {}),
  };
}
