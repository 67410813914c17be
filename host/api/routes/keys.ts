import type { FastifyPluginAsync } from "fastify";
import type { GatewayKeyRecord, GatewayKeys } from "../../keys/keys.js";
import type { ControlLog } from "../control-log.js";
import { withKeys } from "../../objects/with-keys.js";
import { KEY_SCOPES, type KeyScope } from "../../keys/key-store.js";
import { ADMIN, VIEWER } from "../roles.js";

/** What the gateway key management routes need: the key store and the admin token. */
export interface GatewayKeyRoutesOptions {
  keys: GatewayKeys;
  /** Where key.create and key.revoke are recorded (the management API's control audit). */
  control?: ControlLog;
}

const keyView = {
  type: "object",
  required: ["id", "space_id", "name", "prefix", "created_at", "revoked_at", "scope"],
  properties: {
    id: { type: "string" },
    space_id: { type: "string" },
    name: { type: ["string", "null"] },
    prefix: { type: "string", description: "The key's first characters, to tell keys apart." },
    created_at: { type: "string", format: "date-time" },
    revoked_at: { type: ["string", "null"], format: "date-time" },
    scope: { enum: KEY_SCOPES, description: "What the key opens: `gateway` (the model gateway) or `hooks` (the coding agents' hook door, POST /v1/agent-hooks/..., and nothing else)." },
  },
} as const;

/**
 * Management routes for gateway API keys, relative to the prefix they are mounted under:
 * `POST /gateway/keys` (answers the plaintext key, once), `GET /gateway/keys[?space_id=]`
 * (no secrets), `DELETE /gateway/keys/:id` (revokes). Errors are thrown as SluiceError
 * (`ID_INVALID`, `REQUEST_INVALID`, `GATEWAY_KEY_NOT_FOUND`) for the mounting server's
 * error handler, and the routes inherit its authentication.
 *
 * @example
 * await app.register(gatewayKeyRoutes, { prefix: "/api/v1", keys });
 */
export const gatewayKeyRoutes: FastifyPluginAsync<GatewayKeyRoutesOptions> = async (app, { keys, control }) => {
  app.post<{ Body: { space_id: string; name?: string | null; scope?: KeyScope } }>("/gateway/keys", {
    config: ADMIN,
    schema: {
      tags: ["gateway"],
      summary: "Create a gateway API key for a space; the answer holds the key, which is not shown again.",
      body: {
        type: "object", required: ["space_id"], additionalProperties: false,
        properties: {
          space_id: { type: "string", description: "The space every gateway call made with this key runs in: its operations carry it as their space_id, and bindings whose match names spaces apply to it. Any id you choose (e.g. your team's or tenant's); `sluice keys create --space <id>`." },
          name: { type: ["string", "null"], maxLength: 200, description: "A label to tell keys apart in lists." },
          scope: { enum: KEY_SCOPES, description: "`gateway` (the default): the model gateway. `hooks`: the coding agents' hook door only (`sluice keys create --space S --scope hooks`)." },
        },
      },
      response: { 201: withKeys(keyView, { required: [...keyView.required, "key"], properties: withKeys(keyView.properties, { key: { type: "string" } }) }) },
    },
  }, async (request, reply) => {
    const { key, record } = await keys.create({ spaceId: request.body.space_id, name: request.body.name ?? null, ...(request.body.scope ? { scope: request.body.scope } : {}) });
    await control?.record(request, "key.create", { target: record.id, changes: [{ path: `gateway key ${record.name ?? record.prefix}`, from: null, to: `space ${record.spaceId}, scope ${record.scope}` }] });
    return reply.code(201).send(withKeys(view(record), { key }));
  });

  app.get<{ Querystring: { space_id?: string } }>("/gateway/keys", {
    config: VIEWER,
    schema: {
      tags: ["gateway"],
      summary: "List gateway API keys (never their secrets), revoked ones included.",
      querystring: { type: "object", properties: { space_id: { type: "string" } } },
      response: { 200: { type: "object", required: ["keys"], properties: { keys: { type: "array", items: keyView } } } },
    },
  }, async (request) => ({ keys: (await keys.list(request.query.space_id !== undefined ? { spaceId: request.query.space_id } : {})).map(view) }));

  app.delete<{ Params: { id: string } }>("/gateway/keys/:id", {
    config: ADMIN,
    schema: {
      tags: ["gateway"],
      summary: "Revoke a gateway API key; requests with it are refused from now on.",
      params: { type: "object", required: ["id"], properties: { id: { type: "string" } } },
      response: { 200: keyView },
    },
  }, async (request) => {
    const record = await keys.revoke(request.params.id);
    await control?.record(request, "key.revoke", { target: record.id, changes: [{ path: `gateway key ${record.name ?? record.prefix}`, from: `space ${record.spaceId}`, to: "revoked" }] });
    return view(record);
  });
};

function view(r: GatewayKeyRecord) {
  return { id: r.id, space_id: r.spaceId, name: r.name, prefix: r.prefix, created_at: r.createdAt, revoked_at: r.revokedAt, scope: r.scope };
}
