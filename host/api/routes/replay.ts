/** Replay: a recorded operation's hook chain again, with another build of one plugin (registry/replay.ts). */
import type { FastifyInstance } from "fastify";
import { SluiceError } from "../../errors/sluice-error.js";
import type { Registry } from "../../registry/registry.js";
import { anyObject, errorResponses } from "../schemas.js";
import { DEPLOYER } from "../roles.js";

const REPLAY_BODY = {
  type: "object",
  additionalProperties: false,
  properties: {
    hook_ref: { type: "string", description: "A stored plugin version to replay with, id@version." },
    manifest: { type: "string", description: "A local build's hook.yaml (with wasm_base64): loaded for this replay only, never stored." },
    wasm_base64: { type: "string" },
  },
} as const;

export function replayRoutes(app: FastifyInstance, registry: Registry, bodyLimit: number): void {
  app.post<{ Params: { id: string }; Body: { hook_ref?: string; manifest?: string; wasm_base64?: string } }>("/api/v1/operations/:id/replay", {
    config: DEPLOYER,
    bodyLimit,
    schema: {
      tags: ["operations"],
      summary: "Run a recorded operation's hook chain again on its recorded stage inputs (needs the payload store), with another build or version of one plugin, and say what would change. Never calls the tool or model; stores nothing.",
      body: REPLAY_BODY, response: { 200: anyObject, ...errorResponses(400, 404, 409) },
    },
  }, async (request) => {
    const b = request.body;
    if ((b.hook_ref === undefined) === (b.manifest === undefined) || (b.manifest === undefined) !== (b.wasm_base64 === undefined)) {
      throw new SluiceError("REQUEST_INVALID", "send either hook_ref (a stored version) or manifest with wasm_base64 (a local build), not both");
    }
    const target = b.hook_ref !== undefined ? { hook_ref: b.hook_ref } : { manifest: b.manifest!, wasm: new Uint8Array(Buffer.from(b.wasm_base64!, "base64")) };
    return { replay: await registry.replay(request.params.id, target) };
  });
}
