/** Bindings of the draft pipeline: what the next publish freezes. */
import type { FastifyInstance } from "fastify";
import type { Registry } from "../../registry/registry.js";
import { BINDING_INPUT_SCHEMA } from "../../registry/binding-input.js";
import { anyObject, errorResponses } from "../schemas.js";

const UPDATE_BODY = { ...BINDING_INPUT_SCHEMA, required: ["hook_ref", "point"] } as const;

export function bindingRoutes(app: FastifyInstance, registry: Registry): void {
  app.get("/api/v1/bindings", { schema: { tags: ["bindings"], summary: "The draft bindings, in order.", response: { 200: anyObject, ...errorResponses() } } },
    async () => ({ items: await registry.listBindings() }));

  app.post<{ Body: Record<string, unknown> }>("/api/v1/bindings", {
    schema: { tags: ["bindings"], summary: "Add a binding at the end of the draft order; config is checked against the plugin's config_schema.", body: BINDING_INPUT_SCHEMA, response: { 201: anyObject, ...errorResponses(400, 404, 409) } },
  }, async (request, reply) => reply.status(201).send({ binding: await registry.createBinding(request.body) }));

  app.get<{ Params: { id: string } }>("/api/v1/bindings/:id", { schema: { tags: ["bindings"], summary: "One draft binding.", response: { 200: anyObject, ...errorResponses(400, 404) } } },
    async (request) => ({ binding: await registry.getBinding(request.params.id) }));

  app.put<{ Params: { id: string }; Body: Record<string, unknown> }>("/api/v1/bindings/:id", {
    schema: { tags: ["bindings"], summary: "Replace a draft binding, keeping its place in the order.", body: UPDATE_BODY, response: { 200: anyObject, ...errorResponses(400, 404) } },
  }, async (request) => ({ binding: await registry.updateBinding(request.params.id, request.body) }));

  app.delete<{ Params: { id: string } }>("/api/v1/bindings/:id", { schema: { tags: ["bindings"], summary: "Remove a draft binding (published releases keep theirs).", response: { 204: { type: "null" }, ...errorResponses(400, 404) } } },
    async (request, reply) => { await registry.deleteBinding(request.params.id); return reply.status(204).send(); });
}
