/** `GET /api/v1/status`: what this process serves, beside what the database says is active. */
import type { FastifyInstance } from "fastify";
import { ERROR_CODES } from "../../errors/codes.js";
import { SDK_INTERFACE_VERSION } from "../../registry/extensions.js";
import type { Registry } from "../../registry/registry.js";
import { errorResponses } from "../schemas.js";
import { VIEWER } from "../roles.js";

const revision = { type: "integer", minimum: 0 } as const;

export const STATUS_RESPONSE = {
  type: "object",
  additionalProperties: false,
  required: ["active_revision", "serving_revision", "serving_since", "loading_revision", "release_error", "sdk_interface_version", "plugins", "bindings", "releases"],
  properties: {
    active_revision: { ...revision, description: "The active revision in the database (0: none); what every host of this database should serve." },
    serving_revision: { ...revision, description: "The revision this process serves now. It differs from active_revision for up to a second after an activation through another host, or while this host cannot load the active one (see release_error)." },
    serving_since: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }], description: "When this process switched to serving_revision (null before its first release): beside the activation's activated_at, how long the release took to reach this host." },
    loading_revision: { anyOf: [revision, { type: "null" }], description: "A revision this process is fetching and compiling, before it switches to it." },
    release_error: {
      description: "Why this process does not serve the active revision: it could not load it, and keeps serving serving_revision (retried every few seconds). Null when it serves the active revision.",
      anyOf: [{
        type: "object", additionalProperties: false, required: ["revision", "code", "message", "at"],
        properties: { revision, code: { type: "string", enum: Object.keys(ERROR_CODES) }, message: { type: "string" }, at: { type: "string", format: "date-time" } },
      }, { type: "null" }],
    },
    sdk_interface_version: { type: "string" },
    plugins: { type: "integer", minimum: 0 },
    bindings: { type: "integer", minimum: 0 },
    releases: { type: "integer", minimum: 0 },
  },
} as const;

export function statusRoutes(app: FastifyInstance, registry: Registry): void {
  app.get("/api/v1/status", { config: VIEWER, schema: { tags: ["status"], summary: "The revision this process serves beside the active one in the database, and counts.", response: { 200: STATUS_RESPONSE, ...errorResponses() } } }, async () => {
    const { active_revision, serving_revision, serving_since, loading_revision, error } = await registry.releaseStatus();
    return {
      active_revision, serving_revision, serving_since, loading_revision, release_error: error,
      sdk_interface_version: SDK_INTERFACE_VERSION,
      plugins: (await registry.listPlugins()).length,
      bindings: (await registry.listBindings()).length,
      releases: (await registry.listReleases()).length,
    };
  });
}
