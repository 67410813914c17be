/** Replay: a recorded operation's hook chain again, with another build of one plugin (registry/replay.ts). */
import type { FastifyInstance } from "fastify";
import { SluiceError } from "../../errors/sluice-error.js";
import type { Registry } from "../../registry/registry.js";
import { errorResponses } from "../schemas.js";

const outcome = { type: ["object", "null"], additionalProperties: false, required: ["outcome", "error_code"], properties: { outcome: { type: "string" }, error_code: { type: ["string", "null"] } } } as const;

/** What a replay computed (registry/replay.ts), stage by stage. */
const REPLAYED = {
  type: "object", additionalProperties: false, required: ["replay"],
  properties: {
    replay: {
      type: "object", additionalProperties: false, required: ["operation_id", "revision", "replacement", "stages", "changed"],
      properties: {
        operation_id: { type: "string" },
        revision: { type: "integer", description: "The release the operation ran on." },
        replacement: { type: "string", description: "The plugin put in place of its stored version." },
        changed: { type: "boolean" },
        stages: {
          type: "array",
          items: {
            type: "object", additionalProperties: false, required: ["point", "hooks", "output", "stop", "changed"],
            properties: {
              point: { type: "string" },
              hooks: {
                type: "array",
                items: {
                  type: "object", additionalProperties: false, required: ["binding_id", "hook_ref", "replaced", "recorded", "replayed", "changed"],
                  properties: { binding_id: { type: "string" }, hook_ref: { type: "string" }, replaced: { type: "boolean", description: "This binding ran the replacement." }, recorded: outcome, replayed: outcome, changed: { type: "boolean" } },
                },
              },
              output: {
                type: "array", description: "How the stage's output payload would differ, as JSON Pointer paths; empty when it would not.",
                items: { type: "object", additionalProperties: false, required: ["path"], properties: { path: { type: "string" }, expected: {}, actual: {} } },
              },
              output_unavailable: { type: "boolean", description: "The recorded output was not in the payload store: only whether it changed is known." },
              stop: { type: "object", additionalProperties: false, required: ["recorded", "replayed"], properties: { recorded: { type: ["string", "null"] }, replayed: { type: ["string", "null"] } } },
              changed: { type: "boolean" },
            },
          },
        },
      },
    },
  },
} as const;
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
      body: REPLAY_BODY, response: { 200: REPLAYED, ...errorResponses(400, 404, 409) },
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
