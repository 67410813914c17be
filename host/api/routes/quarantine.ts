/** Quarantine: the plugins that failed repeatedly, and the operator's lift. */
import type { FastifyInstance } from "fastify";
import { SluiceError } from "../../errors/sluice-error.js";
import type { Host } from "../../host.js";
import type { ControlLog } from "../control-log.js";
import { errorResponses } from "../schemas.js";

const QUARANTINED = {
  type: "object", additionalProperties: false, required: ["items"],
  properties: {
    items: {
      type: "array",
      items: {
        type: "object", additionalProperties: false, required: ["ref", "since", "until", "failures", "lastError"],
        properties: {
          ref: { type: "string", description: "The plugin version, id@version." },
          since: { type: "number", description: "Epoch ms when it was quarantined." },
          until: { type: ["number", "null"], description: "Epoch ms when the cooldown ends; null: only an operator lifts it." },
          failures: { type: "integer", description: "Faults counted in the window that tripped it." },
          lastError: ref("ErrorData"),
        },
      },
    },
  },
} as const;
import { DEPLOYER, VIEWER } from "../roles.js";
import { ref } from "../shapes/ref.js";

export function quarantineRoutes(app: FastifyInstance, host: Host, control: ControlLog): void {
  app.get("/api/v1/quarantine", { config: VIEWER, schema: { tags: ["quarantine"], summary: "Plugins quarantined now, with their last error.", response: { 200: QUARANTINED, ...errorResponses() } } },
    async () => ({ items: host.quarantine.list() }));

  app.delete<{ Params: { ref: string } }>("/api/v1/quarantine/:ref", {
    config: DEPLOYER,
    schema: { tags: ["quarantine"], summary: "Lift the quarantine of a plugin (id@version): its bindings run again.", response: { 204: { type: "null" }, ...errorResponses(404) } },
  }, async (request, reply) => {
    if (!host.quarantine.lift(request.params.ref)) {
      throw new SluiceError("PLUGIN_NOT_FOUND", `${request.params.ref} is not quarantined`, { ref: request.params.ref });
    }
    await control.record(request, "quarantine.lift", { target: request.params.ref, changes: [{ path: `${request.params.ref}: quarantined`, from: true, to: false }] });
    return reply.status(204).send();
  });
}
