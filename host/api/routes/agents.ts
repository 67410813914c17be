import type { FastifyInstance } from "fastify";
import type { AgentEventLog } from "../../agents/event-log.js";
import { VIEWER } from "../roles.js";

/** `GET /api/v1/agents/status`: which coding agents' events reached the door, how often, when last and how they were answered. */
export function agentStatusRoutes(app: FastifyInstance, events: AgentEventLog): void {
  app.get<{ Querystring: { space_id?: string } }>("/api/v1/agents/status", {
    config: VIEWER,
    schema: {
      tags: ["agents"],
      summary: "Which coding agents' hook events reached the door (POST /v1/agent-hooks/{agent}/{event}): per agent and event, how many, when last, and the last answer (continue, deny, ask, block, replace, neutral, refused).",
      querystring: { type: "object", additionalProperties: false, properties: { space_id: { type: "string", description: "Only events of keys of this space." } } },
      response: {
        200: {
          type: "object", required: ["events"],
          properties: {
            events: {
              type: "array",
              items: {
                type: "object", required: ["agent", "event", "count", "lastSeenAt", "lastOutcome"],
                properties: { agent: { type: "string" }, event: { type: "string" }, count: { type: "integer" }, lastSeenAt: { type: "string", format: "date-time" }, lastOutcome: { type: "string" } },
              },
            },
          },
        },
      },
    },
  }, async (request) => ({ events: await events.summary(request.query.space_id) }));
}
