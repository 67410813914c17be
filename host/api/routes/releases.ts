/** Releases: publish the draft as an immutable revision, activate one, roll back. */
import type { FastifyInstance } from "fastify";
import type { AfterOrderMode } from "../../pipeline/bindings.js";
import type { Registry } from "../../registry/registry.js";
import type { ControlLog } from "../control-log.js";
import { errorResponses, PUBLISH_BODY, ROLLBACK_BODY } from "../schemas.js";

const active_revision = { type: "integer", description: "The active revision (0: none)." } as const;
const LIST = {
  type: "object", additionalProperties: false, required: ["active_revision", "items", "activations"],
  properties: { active_revision, items: { type: "array", items: ref("Release") }, activations: { type: "array", items: ref("Activation"), description: "Every switch of the active revision, oldest first." } },
} as const;
const PUBLISHED = {
  type: "object", additionalProperties: false, required: ["release", "created", "active_revision"],
  properties: { release: ref("Release"), created: { type: "boolean", description: "False: the draft equals the latest revision, which is answered." }, active_revision },
} as const;
const ACTIVATED = { type: "object", additionalProperties: false, required: ["activation"], properties: { activation: ref("Activation") } } as const;
import { DEPLOYER, VIEWER } from "../roles.js";
import { ref } from "../shapes/ref.js";

export function releaseRoutes(app: FastifyInstance, registry: Registry, control: ControlLog): void {
  app.get("/api/v1/releases", { config: VIEWER, schema: { tags: ["releases"], summary: "Every published revision and the active one.", response: { 200: LIST, ...errorResponses() } } },
    async () => ({ active_revision: await registry.activeRevision(), items: await registry.listReleases(), activations: await registry.listActivations() }));

  app.post<{ Body: { order_mode?: AfterOrderMode; note?: string; activate?: boolean } | undefined }>("/api/v1/releases", {
    config: DEPLOYER,
    schema: { tags: ["releases"], summary: "Publish: freeze the draft bindings, code hashes, configs, order mode and order as the next revision (201); a draft identical to the latest revision creates nothing and answers it with created: false (200).", body: PUBLISH_BODY, response: { 200: PUBLISHED, 201: PUBLISHED, ...errorResponses(400, 404) } },
  }, async (request, reply) => {
    const before = await registry.activeRevision();
    const { release, created } = await registry.publishDraft(request.body ?? {});
    const active = await registry.activeRevision();
    if (created || active !== before) {
      await control.record(request, "publish", {
        target: `revision ${release.revision}`, revision: release.revision,
        changes: [...(created ? [{ path: "published revision", from: null, to: release.revision }] : []), ...(active !== before ? [{ path: "active revision", from: before, to: active }] : [])],
      });
    }
    return reply.status(created ? 201 : 200).send({ release, created, active_revision: active });
  });

  app.get<{ Params: { revision: string } }>("/api/v1/releases/:revision", { config: VIEWER, schema: { tags: ["releases"], summary: "One revision.", response: { 200: { type: "object", additionalProperties: false, required: ["release", "active_revision"], properties: { release: ref("Release"), active_revision } }, ...errorResponses(400, 404) } } },
    async (request) => ({ release: await registry.getRelease(request.params.revision), active_revision: await registry.activeRevision() }));

  app.post<{ Params: { revision: string } }>("/api/v1/releases/:revision/activate", {
    config: DEPLOYER,
    schema: { tags: ["releases"], summary: "Atomically make this revision the one new operations use; running operations finish on theirs.", response: { 200: ACTIVATED, ...errorResponses(400, 404) } },
  }, async (request) => {
    const before = await registry.activeRevision();
    const activation = await registry.activate(request.params.revision);
    await control.record(request, "activate", { target: `revision ${activation.revision}`, revision: activation.revision, changes: [{ path: "active revision", from: before, to: activation.revision }] });
    return { activation };
  });

  app.post<{ Body: { revision?: number } | null | undefined }>("/api/v1/releases/rollback", {
    config: DEPLOYER,
    schema: { tags: ["releases"], summary: "Activate the revision active before the current one, or the one named.", body: ROLLBACK_BODY, response: { 200: { ...ACTIVATED, required: ["activation", "draft_reset_to"], properties: { ...ACTIVATED.properties, draft_reset_to: { type: "integer", description: "The revision the draft was reset to." } } }, ...errorResponses(400, 404) } },
  }, async (request) => {
    const before = await registry.activeRevision();
    const activation = await registry.rollback(request.body?.revision);
    await control.record(request, "rollback", {
      target: `revision ${activation.revision}`, revision: activation.revision,
      changes: [{ path: "active revision", from: before, to: activation.revision }, { path: "draft", from: "as edited", to: `reset to revision ${activation.revision}` }],
    });
    return { activation, draft_reset_to: activation.revision };
  });
}
