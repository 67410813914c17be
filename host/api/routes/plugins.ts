/** Plugins: upload, inspect, and try a version on sample input. */
import type { FastifyInstance } from "fastify";
import type { Registry } from "../../registry/registry.js";
import type { DryRunInput } from "../../registry/dry-run.js";
import type { ControlLog } from "../control-log.js";
import { SluiceError } from "../../errors/sluice-error.js";
import { anyObject, errorResponses, TEST_BODY, UPLOAD_BODY } from "../schemas.js";
import { DEPLOYER, VIEWER } from "../roles.js";

interface VersionParams { id: string; version: string }

export function pluginRoutes(app: FastifyInstance, registry: Registry, control: ControlLog, uploadBodyLimit: number): void {
  app.post<{ Body: { manifest: string; wasm_base64: string } }>("/api/v1/plugins", {
    config: DEPLOYER,
    bodyLimit: uploadBodyLimit,
    schema: {
      tags: ["plugins"],
      summary: "Upload a plugin version (manifest + module). Identical re-uploads answer 200; the same id@version with other bytes is VERSION_CONFLICT.",
      body: UPLOAD_BODY,
      response: { 200: anyObject, 201: anyObject, ...errorResponses(400, 409, 413) },
    },
  }, async (request, reply) => {
    const wasm = Buffer.from(request.body.wasm_base64, "base64");
    if (wasm.byteLength === 0) throw new SluiceError("MODULE_INVALID", "wasm_base64 is empty; send the module's bytes, base64-encoded");
    const { plugin, created } = await registry.upload({ manifest: request.body.manifest, wasm: new Uint8Array(wasm.buffer, wasm.byteOffset, wasm.byteLength) });
    const ref = `${plugin.id}@${plugin.version}`;
    await control.record(request, "upload", { target: ref, changes: created ? [{ path: ref, from: null, to: `sha256 ${plugin.sha256}` }] : [] });
    return reply.status(created ? 201 : 200).send({ plugin, created });
  });

  app.get("/api/v1/plugins", { config: VIEWER, schema: { tags: ["plugins"], summary: "List every stored plugin version.", response: { 200: anyObject, ...errorResponses() } } },
    async () => ({ items: await registry.listPlugins() }));

  app.get<{ Params: { id: string } }>("/api/v1/plugins/:id", { config: VIEWER, schema: { tags: ["plugins"], summary: "List the versions of one plugin.", response: { 200: anyObject, ...errorResponses(400, 404) } } },
    async (request) => ({ id: request.params.id, items: await registry.listPlugins(request.params.id) }));

  app.get<{ Params: VersionParams }>("/api/v1/plugins/:id/versions/:version", { config: VIEWER, schema: { tags: ["plugins"], summary: "One plugin version, with its manifest.", response: { 200: anyObject, ...errorResponses(400, 404) } } },
    async (request) => ({ plugin: await registry.getPlugin(request.params.id, request.params.version) }));

  app.post<{ Params: VersionParams; Body: DryRunInput }>("/api/v1/plugins/:id/versions/:version/test", {
    config: DEPLOYER,
    schema: {
      tags: ["plugins"],
      summary: "Dry run: run the version once on a sample payload and config; returns the outcome, the validated patch result and the timing. Stores nothing.",
      body: TEST_BODY,
      response: { 200: anyObject, ...errorResponses(400, 404) },
    },
  }, async (request) => ({ result: await registry.test(request.params.id, request.params.version, request.body) }));
}
