/** Bindings of the draft pipeline: what the next publish freezes. */
import type { FastifyInstance } from "fastify";
import type { Registry } from "../../registry/registry.js";
import type { BindingRecord } from "../../registry/records.js";
import { BINDING_INPUT_SCHEMA } from "../../registry/binding-input.js";
import type { ControlChangeItem } from "../../records/control-audit-store.js";
import type { ControlLog } from "../control-log.js";
import { DEPLOYER, VIEWER } from "../roles.js";
import { errorResponses } from "../schemas.js";
import { ref } from "../shapes/ref.js";

const UPDATE_BODY = { ...BINDING_INPUT_SCHEMA, required: ["hook_ref", "point"] } as const;
const ONE = { type: "object", additionalProperties: false, required: ["binding"], properties: { binding: ref("Binding") } } as const;
const SPEC_FIELDS = ["hook_ref", "point", "match", "priority", "timeout_ms", "failure_policy", "observe_only", "config", "enabled", "mandatory", "extension"] as const;

/** Each field of a binding that differs, as "<id>: <field>" from → to. */
export function bindingChanges(id: string, before: Partial<BindingRecord> | undefined, after: Partial<BindingRecord> | undefined): ControlChangeItem[] {
  const changes: ControlChangeItem[] = [];
  for (const field of SPEC_FIELDS) {
    const from = before?.[field] ?? null;
    const to = after?.[field] ?? null;
    if (JSON.stringify(from) !== JSON.stringify(to)) changes.push({ path: `${id}: ${field}`, from, to });
  }
  return changes;
}

export function bindingRoutes(app: FastifyInstance, registry: Registry, control: ControlLog): void {
  app.get("/api/v1/bindings", { config: VIEWER, schema: { tags: ["bindings"], summary: "The draft bindings, in order.", response: { 200: { type: "object", additionalProperties: false, required: ["items"], properties: { items: { type: "array", items: ref("Binding") } } }, ...errorResponses() } } },
    async () => ({ items: await registry.listBindings() }));

  app.post<{ Body: Record<string, unknown> }>("/api/v1/bindings", {
    config: DEPLOYER,
    schema: { tags: ["bindings"], summary: "Add a binding at the end of the draft order; config is checked against the plugin's config_schema.", body: BINDING_INPUT_SCHEMA, response: { 201: ONE, ...errorResponses(400, 403, 404, 409) } },
  }, async (request, reply) => {
    const binding = await registry.createBinding(request.body);
    await control.record(request, "bind", { target: binding.id, changes: bindingChanges(binding.id, undefined, binding) });
    return reply.status(201).send({ binding });
  });

  app.get<{ Params: { id: string } }>("/api/v1/bindings/:id", { config: VIEWER, schema: { tags: ["bindings"], summary: "One draft binding.", response: { 200: ONE, ...errorResponses(400, 404) } } },
    async (request) => ({ binding: await registry.getBinding(request.params.id) }));

  app.put<{ Params: { id: string }; Body: Record<string, unknown> }>("/api/v1/bindings/:id", {
    config: DEPLOYER,
    schema: { tags: ["bindings"], summary: "Replace a draft binding, keeping its place in the order.", body: UPDATE_BODY, response: { 200: ONE, ...errorResponses(400, 403, 404) } },
  }, async (request) => {
    const before = await registry.getBinding(request.params.id);
    const binding = await registry.updateBinding(request.params.id, request.body);
    await control.record(request, "binding.set", { target: binding.id, changes: bindingChanges(binding.id, before, binding) });
    return { binding };
  });

  app.delete<{ Params: { id: string } }>("/api/v1/bindings/:id", { config: DEPLOYER, schema: { tags: ["bindings"], summary: "Remove a draft binding (published releases keep theirs).", response: { 204: { type: "null" }, ...errorResponses(400, 403, 404) } } },
    async (request, reply) => {
      const before = await registry.getBinding(request.params.id);
      await registry.deleteBinding(request.params.id);
      await control.record(request, "unbind", { target: request.params.id, changes: bindingChanges(request.params.id, before, undefined) });
      return reply.status(204).send();
    });
}
