/**
 * Bearer-token authentication and the role check, on every route, before the body is read.
 * Two kinds of token are accepted: the server's own (SLUICE_TOKEN, --token-file or the data
 * folder's api-token), which is the built-in `admin` token, compared as a sha256 digest with
 * timingSafeEqual; and named tokens (keys/api-tokens.ts), each with a role, stored hashed.
 * Each route states the role it needs in its `config.role` (roles.ts refuses a route that
 * does not). Failures are counted per client address and token (http/auth-failures.ts).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { SluiceError } from "../errors/sluice-error.js";
import { authFailures, DEFAULT_AUTH_FAILURE_LIMIT, type AuthFailureLimit } from "../http/auth-failures.js";
import { isProbe } from "../http/probes.js";
import { roleAllows, type ApiRole } from "../keys/api-roles.js";
import { BUILTIN_TOKEN_NAME, type ApiTokens } from "../keys/api-tokens.js";
import { roleRefusal } from "./roles.js";

export { DEFAULT_AUTH_FAILURE_LIMIT, type AuthFailureLimit } from "../http/auth-failures.js";

/** Who sent a request: the token's id, name and role. */
export interface Actor {
  id: string;
  name: string;
  role: ApiRole;
}

/** The server's own token, as every list and audit names it. */
export const BUILTIN_ACTOR: Actor = { id: BUILTIN_TOKEN_NAME, name: BUILTIN_TOKEN_NAME, role: "admin" };

const actors = new WeakMap<FastifyRequest, Actor>();

/** The token a request was authenticated with. */
export function actorOf(request: FastifyRequest): Actor {
  const actor = actors.get(request);
  if (!actor) throw new SluiceError("INTERNAL_ERROR", "a route ran without authentication");
  return actor;
}

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

/** Adds the onRequest check (before the body is read, so unauthenticated or unauthorised uploads cost nothing). */
export async function installBearerAuth(app: FastifyInstance, token: string, tokens: ApiTokens, limit: AuthFailureLimit = DEFAULT_AUTH_FAILURE_LIMIT): Promise<void> {
  const expected = digest(token);
  const failures = await authFailures(app, limit);
  app.addHook("onRequest", async (request, reply) => {
    // The console's static files (routes/console.ts): the page that asks for the token.
    // They hold no data; every API call the page makes carries the token like any client's.
    if (request.routeOptions.config?.publicAsset === true) return;
    // Liveness and readiness (http/probes.ts): a status and nothing else.
    if (isProbe(request)) return;
    // The coding agents' hook door (agents/door.ts) takes a hooks key, never this token.
    if (request.routeOptions.config?.agentDoor === true) return;
    await failures.check(request, reply);
    const header = request.headers.authorization;
    const match = typeof header === "string" ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    const actor = match === null ? undefined : timingSafeEqual(digest(match[1]!), expected) ? BUILTIN_ACTOR : await named(tokens, match[1]!);
    if (!actor) {
      await failures.fail(request);
      if (!match) throw new SluiceError("UNAUTHORIZED", "missing bearer token: send Authorization: Bearer <token> (the server's SLUICE_TOKEN or --token-file, the api-token file in its data folder, or one from sluice tokens create)");
      throw new SluiceError("UNAUTHORIZED", "wrong bearer token (unknown or revoked)");
    }
    actors.set(request, actor);
    // An unknown route has no role: the not-found handler answers it.
    const need = request.routeOptions.config?.role;
    if (need !== undefined && !roleAllows(actor.role, need)) throw roleRefusal(actor, need, `${request.method} ${request.routeOptions.url ?? request.url}`);
  });
}

async function named(tokens: ApiTokens, token: string): Promise<Actor | undefined> {
  const record = await tokens.verify(token);
  return record ? { id: record.id, name: record.name, role: record.role } : undefined;
}

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);
}
