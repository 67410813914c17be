/**
 * A binding as a client writes it, checked once into a complete {@link BindingSpec}:
 * shape by JSON Schema, then what only the plugin can say (its points and config schema).
 */
import { SluiceError } from "../errors/sluice-error.js";
import type { BindingMatch } from "../pipeline/bindings.js";
import type { BindingInput } from "../pipeline/release.js";
import { BINDING_INPUT_SCHEMA } from "./binding-schema.js";
import { checkConfig } from "./config-schema.js";
import { checkBindingId, parseHookRef } from "./ids.js";
import { validateBindingInputShape as validateShape } from "./shape-validators.generated.js";
import { explainErrors, problemsText } from "./validation-message.js";
import type { BindingSpec, MatchSpec, PluginRecord, ReleaseBinding } from "./records.js";

export { BINDING_INPUT_SCHEMA };

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
