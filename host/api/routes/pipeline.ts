/** The extension view (docs/api-and-gateway.md): list, enable/disable, reorder. */
import type { FastifyInstance } from "fastify";
import type { AfterOrderMode } from "../../pipeline/bindings.js";
import type { Registry } from "../../registry/registry.js";
import type { ControlLog } from "../control-log.js";
import { ENABLE_BODY, errorResponses, ORDER_BODY } from "../schemas.js";
import { DEPLOYER, VIEWER } from "../roles.js";
import { ref } from "../shapes/ref.js";

export function pipelineRoutes(app: FastifyInstance, registry: Registry, control: ControlLog): void {
  app.get<{ Querystring: { view?: "active" | "draft" } }>("/api/v1/pipeline/extensions", {
    config: VIEWER,
    schema: {
      tags: ["pipeline"],
      summary: "The extensions (bindings) of the active release, or of the draft, with the SDK interface version and deprecations.",
      querystring: { type: "object", additionalProperties: false, properties: { view: { type: "string", enum: ["active", "draft"] } } },
      response: { 200: ref("ExtensionList"), ...errorResponses(400) },
    },
  }, async (request) => registry.extensions(request.query.view));

  app.patch<{ Params: { id: string }; Body: { enabled: boolean } }>("/api/v1/pipeline/extensions/:id", {
    config: DEPLOYER,
    schema: {
      tags: ["pipeline"],
      summary: "Enable or disable an extension. It keeps its place in the order; when the active release holds it, a new revision is activated at once.",
      body: ENABLE_BODY,
      response: { 200: ref("ControlChange"), ...errorResponses(400, 404) },
    },
  }, async (request) => {
    const { id } = request.params;
    const before = await registry.activeRevision();
    const change = await registry.setEnabled(id, request.body.enabled);
    await control.record(request, request.body.enabled ? "enable" : "disable", {
      target: id, revision: change.created ?? null,
      changes: [{ path: `${id}: enabled`, from: !request.body.enabled, to: request.body.enabled }, ...(change.revision !== before ? [{ path: "active revision", from: before, to: change.revision }] : [])],
    });
    return change;
  });

  app.put<{ Body: { order: string[]; order_mode?: AfterOrderMode } }>("/api/v1/pipeline/order", {
    config: DEPLOYER,
    schema: {
      tags: ["pipeline"],
      summary: "Reorder extensions (and optionally set the after-order mode), in the draft and, as a new revision, in the active release.",
      body: ORDER_BODY,
      response: { 200: ref("ControlChange"), ...errorResponses(400, 404) },
    },
  }, async (request) => registry.reorder(request.body.order, request.body.order_mode));
}
