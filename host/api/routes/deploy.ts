/** `POST /api/v1/deploy`: upload, bind (hook.yaml's bindings), publish and activate as one step (Registry.deploy). */
import type { FastifyInstance } from "fastify";
import type { ControlLog } from "../control-log.js";
import { SluiceError } from "../../errors/sluice-error.js";
import type { Registry } from "../../registry/registry.js";
import type { PluginSource } from "../../registry/records.js";
import { errorResponses, UPLOAD_BODY } from "../schemas.js";
import { DEPLOYER } from "../roles.js";
import { ref } from "../shapes/ref.js";

const DEPLOY_BODY = {
  type: "object",
  additionalProperties: false,
  required: ["manifest", "wasm_base64"],
  properties: {
    ...UPLOAD_BODY.properties,
    activate: { type: "boolean", description: "Activate the new revision (default true)." },
    note: { type: "string", maxLength: 1000, description: "A note kept with the release." },
    source: {
      type: "object",
      additionalProperties: false,
      required: ["repository", "commit"],
      description: "Where the version was built from, kept with it (`sluice deploy --git`).",
      properties: {
        repository: { type: "string", minLength: 1, maxLength: 2000, description: "The Git repository: a URL or a path." },
        commit: { type: "string", pattern: "^[0-9a-f]{40}([0-9a-f]{24})?$", description: "The full commit id built." },
        ref: { type: "string", maxLength: 256, description: "The branch, tag or commit asked for." },
        path: { type: "string", maxLength: 1000, description: "The package's folder in the repository." },
      },
    },
  },
} as const;

/** What a deploy did (registry/deploy.ts). */
const DEPLOYED = {
  type: "object", additionalProperties: false, required: ["plugin", "uploaded", "bindings", "release", "created", "activated", "active_revision"],
  properties: {
    plugin: ref("Plugin"),
    uploaded: { type: "boolean", description: "False: an identical version was stored already and is reused." },
    bindings: {
      type: "array", description: "The manifest's bindings, each created or replaced in the draft.",
      items: { type: "object", additionalProperties: false, required: ["id", "point", "created"], properties: { id: { type: "string" }, point: { type: "string" }, created: { type: "boolean" } } },
    },
    release: ref("Release"),
    created: { type: "boolean", description: "False: the draft was identical to the latest revision, so none was created." },
    activated: { type: "boolean" },
    active_revision: { type: "integer" },
  },
} as const;

export function deployRoutes(app: FastifyInstance, registry: Registry, control: ControlLog, uploadBodyLimit: number): void {
  app.post<{ Body: { manifest: string; wasm_base64: string; activate?: boolean; note?: string; source?: PluginSource } }>("/api/v1/deploy", {
    config: DEPLOYER,
    bodyLimit: uploadBodyLimit,
    schema: {
      tags: ["plugins", "releases"],
      summary: "Deploy a plugin version in one step: check the manifest, the module and every binding of the manifest's `bindings` section (point, config against config_schema), then in one transaction store the version (an identical one is reused; the stored manifest leaves `bindings` out, so a bindings-only change needs no new version), create or replace those draft bindings, publish the draft and activate it. When any step fails nothing is stored.",
      body: DEPLOY_BODY,
      response: { 200: DEPLOYED, ...errorResponses(400, 404, 409, 413) },
    },
  }, async (request) => {
    const wasm = Buffer.from(request.body.wasm_base64, "base64");
    if (wasm.byteLength === 0) throw new SluiceError("MODULE_INVALID", "wasm_base64 is empty; send the module's bytes, base64-encoded");
    const { activate, note, source } = request.body;
    const before = await registry.activeRevision();
    const result = await registry.deploy({ manifest: request.body.manifest, wasm: new Uint8Array(wasm.buffer, wasm.byteOffset, wasm.byteLength), ...(activate !== undefined ? { activate } : {}), ...(note !== undefined ? { note } : {}), ...(source !== undefined ? { source } : {}) });
    await control.record(request, "deploy", {
      target: `${result.plugin.id}@${result.plugin.version}`, revision: result.release.revision,
      changes: [
        ...result.bindings.map((b) => ({ path: `${b.id}: binding`, from: b.created ? null : "replaced", to: `${result.plugin.id}@${result.plugin.version} at ${b.point}` })),
        ...(result.active_revision !== before ? [{ path: "active revision", from: before, to: result.active_revision }] : []),
      ],
    });
    return result;
  });
}
