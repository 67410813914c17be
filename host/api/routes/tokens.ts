/**
 * Named API tokens (`sluice tokens`): create (answers the token once), list (no secrets;
 * the server's own token first, as `admin`), revoke. Admin only.
 */
import type { FastifyInstance } from "fastify";
import { API_ROLES } from "../../keys/api-roles.js";
import type { ApiTokenRow } from "../../keys/api-token-store.js";
import type { ApiTokens } from "../../keys/api-tokens.js";
import { SluiceError } from "../../errors/sluice-error.js";
import { actorOf, BUILTIN_ACTOR } from "../auth.js";
import type { ControlLog } from "../control-log.js";
import { ADMIN, VIEWER } from "../roles.js";
import { errorResponses } from "../schemas.js";

const tokenView = {
  type: "object", additionalProperties: false,
  required: ["id", "name", "role", "prefix", "created_at", "revoked_at", "builtin"],
  properties: {
    id: { type: "string" },
    name: { type: "string" },
    role: { type: "string", enum: API_ROLES },
    prefix: { type: ["string", "null"], description: "The token's first characters, to tell tokens apart (null for the server's own token)." },
    created_at: { type: ["string", "null"], format: "date-time" },
    revoked_at: { type: ["string", "null"], format: "date-time" },
    builtin: { type: "boolean", description: "True for the server's own token (SLUICE_TOKEN, --token-file or <data>/api-token): rotated, never revoked." },
  },
} as const;

const CREATE_BODY = {
  type: "object", additionalProperties: false, required: ["name", "role"],
  properties: {
    name: { type: "string", minLength: 1, maxLength: 100, description: "Who or what uses the token (a person, a script); the control audit names actions by it." },
    role: { type: "string", enum: API_ROLES },
  },
} as const;

export function tokenViewOf(r: ApiTokenRow) {
  return { id: r.id, name: r.name, role: r.role, prefix: r.prefix, created_at: r.createdAt, revoked_at: r.revokedAt, builtin: false };
}

const BUILTIN_VIEW = { id: BUILTIN_ACTOR.id, name: BUILTIN_ACTOR.name, role: BUILTIN_ACTOR.role, prefix: null, created_at: null, revoked_at: null, builtin: true };

export function tokenRoutes(app: FastifyInstance, tokens: ApiTokens, control: ControlLog): void {
  app.post<{ Body: { name: string; role: string } }>("/api/v1/tokens", {
    config: ADMIN,
    schema: {
      tags: ["tokens"], summary: "Create a named API token with a role; the answer holds the token, which is not shown again.",
      body: CREATE_BODY,
      response: { 201: { ...tokenView, required: [...tokenView.required, "token"], properties: { ...tokenView.properties, token: { type: "string" } } }, ...errorResponses(400, 403, 409) },
    },
  }, async (request, reply) => {
    const { token, record } = await tokens.create(request.body);
    await control.record(request, "token.create", { target: record.id, changes: [{ path: `token ${record.name}`, from: null, to: record.role }] });
    return reply.status(201).send({ ...tokenViewOf(record), token });
  });

  app.get("/api/v1/whoami", {
    config: VIEWER,
    schema: { tags: ["tokens"], summary: "The token this request carries: its id, name and role (the console shows it, and offers only the actions the role may take).", response: { 200: { type: "object", additionalProperties: false, required: ["id", "name", "role"], properties: { id: { type: "string" }, name: { type: "string" }, role: { type: "string", enum: API_ROLES } } } } },
  }, async (request) => actorOf(request));

  app.get("/api/v1/tokens", {
    config: ADMIN,
    schema: { tags: ["tokens"], summary: "The API tokens (never their secrets): the server's own token `admin`, then the named ones, oldest first, revoked ones included.", response: { 200: { type: "object", additionalProperties: false, required: ["items"], properties: { items: { type: "array", items: tokenView } } }, ...errorResponses(403) } },
  }, async () => ({ items: [BUILTIN_VIEW, ...(await tokens.list()).map(tokenViewOf)] }));

  app.delete<{ Params: { id: string } }>("/api/v1/tokens/:id", {
    config: ADMIN,
    schema: { tags: ["tokens"], summary: "Revoke a named API token: requests with it are refused from now on.", params: { type: "object", required: ["id"], properties: { id: { type: "string", maxLength: 200 } } }, response: { 200: tokenView, ...errorResponses(403, 404) } },
  }, async (request) => {
    if (request.params.id === BUILTIN_ACTOR.id) throw new SluiceError("API_TOKEN_NOT_FOUND", "the server's own token cannot be revoked: rotate it (sluice tokens rotate) and restart the server", { id: request.params.id });
    const record = await tokens.revoke(request.params.id);
    await control.record(request, "token.revoke", { target: record.id, changes: [{ path: `token ${record.name}`, from: record.role, to: "revoked" }] });
    return tokenViewOf(record);
  });
}
