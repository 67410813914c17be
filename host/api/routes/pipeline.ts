/** The extension view (docs/api-and-gateway.md): list, enable/disable, reorder. */
import type { FastifyInstance } from "fastify";
import type { AfterOrderMode } from "../../pipeline/bindings.js";
import type { Registry } from "../../registry/registry.js";
import { anyObject, ENABLE_BODY, errorResponses, ORDER_BODY } from "../schemas.js";

export function pipelineRoutes(app: FastifyInstance, registry: Registry): void {
  app.get<{ Querystring: { view?: "active" | "draft" } }>("/api/v1/pipeline/extensions", {
    schema: {
      tags: ["pipeline"],
      summary: "The extensions (bindings) of the active release, or of the draft, with the SDK interface version and deprecations.",
      querystring: { type: "object", additionalProperties: false, properties: { view: { type: "string", enum: ["active", "draft"] } } },
      response: { 200: anyObject, ...errorResponses(400) },
    },
  }, async (request) => registry.extensions(request.query.view));

  app.patch<{ Params: { id: string }; Body: { enabled: boolean } }>("/api/v1/pipeline/extensions/:id", {
    schema: {
      tags: ["pipeline"],
      summary: "Enable or disable an extension. It keeps its place in the order; when the active release holds it, a new revision is activated at once.",
      body: ENABLE_BODY,
      response: { 200: anyObject, ...errorResponses(400, 404) },
    },
  }, async (request) => registry.setEnabled(request.params.id, request.body.enabled));

  app.put<{ Body: { order: string[]; order_mode?: AfterOrderMode } }>("/api/v1/pipeline/order", {
    schema: {
      tags: ["pipeline"],
      summary: "Reorder extensions (and optionally set the after-order mode), in the draft and, as a new revision, in the active release.",
      body: ORDER_BODY,
      response: { 200: anyObject, ...errorResponses(400, 404) },
    },
  }, async (request) => registry.reorder(request.body.order, request.body.order_mode));
}
