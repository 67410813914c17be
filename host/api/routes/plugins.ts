/** Plugins: upload, inspect, and try a version on sample input. */
import type { FastifyInstance } from "fastify";
import type { Registry } from "../../registry/registry.js";
import type { DryRunInput } from "../../registry/dry-run.js";
import type { ControlLog } from "../control-log.js";
import { SluiceError } from "../../errors/sluice-error.js";
import { errorResponses, TEST_BODY, UPLOAD_BODY } from "../schemas.js";
import { DEPLOYER, VIEWER } from "../roles.js";
import { ref } from "../shapes/ref.js";

interface VersionParams { id: string; version: string }

const UPLOADED = {
  type: "object", additionalProperties: false, required: ["plugin", "created"],
  properties: { plugin: ref("Plugin"), created: { type: "boolean", description: "False: an identical version was stored already." } },
} as const;
const PLUGIN_LIST = { type: "object", additionalProperties: false, required: ["items"], properties: { items: { type: "array", items: ref("Plugin") } } } as const;

/** A dry run's answer (registry/dry-run.ts): the payload after the hook's validated patch is the point's payload, open here. */
const DRY_RUN = {
  type: "object", additionalProperties: false, required: ["result"],
  properties: {
    result: {
      type: "object", additionalProperties: false, required: ["ref", "point", "outcome", "payload", "changed", "duration_ms", "fuel", "fuel_limit", "total_ms"],
      properties: {
        ref: { type: "string" },
        point: { type: "string" },
        outcome: { type: "string", description: "What the hook decided, or `failed` (then `error` says why)." },
        payload: { type: "object", additionalProperties: true, description: "The payload after the hook's validated patch (the input, unchanged, when it did not patch)." },
        changed: { type: "boolean" },
        stop: {
          type: "object", additionalProperties: false, required: ["kind", "bindingId"], description: "Set on reject, block, ask and short_circuit.",
          properties: { kind: { type: "string", enum: ["reject", "block", "ask", "short_circuit"] }, bindingId: { type: "string" }, code: { type: "string" }, reason: { type: "string" }, result: {} },
        },
        error: ref("ErrorData"),
        annotations: { type: "object", additionalProperties: true },
        logs: {
          type: "object", additionalProperties: false, required: ["lines", "dropped"], description: "What the guest logged, its lines in full: the author's own test run, answered and never stored.",
          properties: { lines: { type: "array", items: { type: "object", additionalProperties: false, required: ["level", "message"], properties: { level: { type: "string" }, message: { type: "string" } } } }, dropped: { type: "integer" } },
        },
        duration_ms: { type: "number", description: "Time inside the guest call." },
        fuel: { type: "number", description: "Fuel the guest call used (abi/README.md §11)." },
        fuel_limit: { type: "number" },
        total_ms: { type: "number", description: "Wall time of the whole dry run, including the thread hop." },
      },
    },
  },
} as const;

export function pluginRoutes(app: FastifyInstance, registry: Registry, control: ControlLog, uploadBodyLimit: number): void {
  app.post<{ Body: { manifest: string; wasm_base64: string } }>("/api/v1/plugins", {
    config: DEPLOYER,
    bodyLimit: uploadBodyLimit,
    schema: {
      tags: ["plugins"],
      summary: "Upload a plugin version (manifest + module). Identical re-uploads answer 200; the same id@version with other bytes is VERSION_CONFLICT.",
      body: UPLOAD_BODY,
      response: { 200: UPLOADED, 201: UPLOADED, ...errorResponses(400, 409, 413) },
    },
  }, async (request, reply) => {
    const wasm = Buffer.from(request.body.wasm_base64, "base64");
    if (wasm.byteLength === 0) throw new SluiceError("MODULE_INVALID", "wasm_base64 is empty; send the module's bytes, base64-encoded");
    const { plugin, created } = await registry.upload({ manifest: request.body.manifest, wasm: new Uint8Array(wasm.buffer, wasm.byteOffset, wasm.byteLength) });
    const ref = `${plugin.id}@${plugin.version}`;
    await control.record(request, "upload", { target: ref, changes: created ? [{ path: ref, from: null, to: `sha256 ${plugin.sha256}` }] : [] });
    return reply.status(created ? 201 : 200).send({ plugin, created });
  });

  app.get("/api/v1/plugins", { config: VIEWER, schema: { tags: ["plugins"], summary: "List every stored plugin version.", response: { 200: PLUGIN_LIST, ...errorResponses() } } },
    async () => ({ items: await registry.listPlugins() }));

  app.get<{ Params: { id: string } }>("/api/v1/plugins/:id", { config: VIEWER, schema: { tags: ["plugins"], summary: "List the versions of one plugin.", response: { 200: { ...PLUGIN_LIST, required: ["id", "items"], properties: { id: { type: "string" }, ...PLUGIN_LIST.properties } }, ...errorResponses(400, 404) } } },
    async (request) => ({ id: request.params.id, items: await registry.listPlugins(request.params.id) }));

  app.get<{ Params: VersionParams }>("/api/v1/plugins/:id/versions/:version", { config: VIEWER, schema: { tags: ["plugins"], summary: "One plugin version, with its manifest.", response: { 200: { type: "object", additionalProperties: false, required: ["plugin"], properties: { plugin: ref("Plugin") } }, ...errorResponses(400, 404) } } },
    async (request) => ({ plugin: await registry.getPlugin(request.params.id, request.params.version) }));

  app.post<{ Params: VersionParams; Body: DryRunInput }>("/api/v1/plugins/:id/versions/:version/test", {
    config: DEPLOYER,
    schema: {
      tags: ["plugins"],
      summary: "Dry run: run the version once on a sample payload and config; returns the outcome, the validated patch result and the timing. Stores nothing.",
      body: TEST_BODY,
      response: { 200: DRY_RUN, ...errorResponses(400, 404) },
    },
  }, async (request) => ({ result: await registry.test(request.params.id, request.params.version, request.body) }));
}
