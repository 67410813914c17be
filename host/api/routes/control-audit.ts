/** `GET /api/v1/control-audit`: who changed what serves or who may act, when, and what changed. */
import type { FastifyInstance } from "fastify";
import { SluiceError } from "../../errors/sluice-error.js";
import { CONTROL_ACTIONS, type ControlAction, type ControlAuditEntry, type ControlAuditStore } from "../../records/control-audit-store.js";
import { VIEWER } from "../roles.js";
import { errorResponses } from "../schemas.js";
import { timeRange } from "../query-time.js";

const entryView = {
  type: "object", additionalProperties: false,
  required: ["id", "at", "action", "token_id", "token_name", "role", "target", "revision", "changes"],
  properties: {
    id: { type: "string" },
    at: { type: "string", format: "date-time" },
    action: { type: "string", enum: CONTROL_ACTIONS },
    token_id: { type: "string" },
    token_name: { type: "string", description: "The acting token's name (admin: the server's own token)." },
    role: { type: "string" },
    target: { type: ["string", "null"] },
    revision: { type: ["integer", "null"], description: "The revision the action published or activated." },
    changes: {
      type: "array",
      items: { type: "object", additionalProperties: false, required: ["path", "from", "to"], properties: { path: { type: "string" }, from: {}, to: {} } },
    },
  },
} as const;

const QUERY = {
  type: "object", additionalProperties: false,
  properties: {
    action: { type: "string", enum: CONTROL_ACTIONS },
    revision: { type: "string", pattern: "^[0-9]{1,9}$" },
    token_name: { type: "string", maxLength: 100 },
    from: { type: "string" }, to: { type: "string" },
    limit: { type: "string", pattern: "^[0-9]{1,5}$" },
    offset: { type: "string", pattern: "^[0-9]{1,9}$" },
  },
} as const;


export function controlEntryView(e: ControlAuditEntry) {
  return { id: e.id, at: e.at, action: e.action, token_id: e.tokenId, token_name: e.tokenName, role: e.role, target: e.target, revision: e.revision, changes: e.changes };
}

export function controlAuditRoutes(app: FastifyInstance, store: ControlAuditStore): void {
  app.get<{ Querystring: { action?: ControlAction; revision?: string; token_name?: string; from?: string; to?: string; limit?: string; offset?: string } }>("/api/v1/control-audit", {
    config: VIEWER,
    schema: {
      tags: ["audit"],
      summary: "The control audit, newest first: each upload, bind, unbind, binding.set, enable, disable, publish, activate, rollback, deploy, quarantine.lift, key.create, key.revoke, token.create and token.revoke with the acting token's name, the time and what changed; filter by action, revision, token name and time range [from, to); `total` is the exact count of the filter.",
      querystring: QUERY,
      response: { 200: { type: "object", additionalProperties: false, required: ["items", "total"], properties: { items: { type: "array", items: entryView }, total: { type: "integer" } } }, ...errorResponses(400) },
    },
  }, async (request) => {
    const q = request.query;
    const limit = q.limit !== undefined ? Number(q.limit) : 100;
    if (limit < 1 || limit > 10_000) throw new SluiceError("REQUEST_INVALID", `limit must be from 1 to 10000, got ${limit}`);
    const { items, total } = await store.list({
      ...(q.action ? { action: q.action } : {}), ...(q.revision !== undefined ? { revision: Number(q.revision) } : {}),
      ...(q.token_name !== undefined ? { tokenName: q.token_name } : {}), ...timeRange(q),
      limit, offset: q.offset !== undefined ? Number(q.offset) : 0,
    });
    return { items: items.map(controlEntryView), total };
  });
}
