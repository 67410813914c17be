/** Quarantine: the plugins that failed repeatedly, and the operator's lift. */
import type { FastifyInstance } from "fastify";
import { SluiceError } from "../../errors/sluice-error.js";
import type { Host } from "../../host.js";
import { anyObject, errorResponses } from "../schemas.js";

export function quarantineRoutes(app: FastifyInstance, host: Host): void {
  app.get("/api/v1/quarantine", { schema: { tags: ["quarantine"], summary: "Plugins quarantined now, with their last error.", response: { 200: anyObject, ...errorResponses() } } },
    async () => ({ items: host.quarantine.list() }));

  app.delete<{ Params: { ref: string } }>("/api/v1/quarantine/:ref", {
    schema: { tags: ["quarantine"], summary: "Lift the quarantine of a plugin (id@version): its bindings run again.", response: { 204: { type: "null" }, ...errorResponses(404) } },
  }, async (request, reply) => {
    if (!host.quarantine.lift(request.params.ref)) {
      throw new SluiceError("PLUGIN_NOT_FOUND", `${request.params.ref} is not quarantined`, { ref: request.params.ref });
    }
    return reply.status(204).send();
  });
}
