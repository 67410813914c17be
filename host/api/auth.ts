/**
 * Bearer-token authentication on every route. Tokens are compared as sha256 digests with
 * timingSafeEqual, so neither length nor content leaks through timing. Failures are
 * counted per client address (auth-failures.ts), so a wrong-token loop cannot test tokens
 * quickly.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { SluiceError } from "../errors/sluice-error.js";
import { authFailures, DEFAULT_AUTH_FAILURE_LIMIT, type AuthFailureLimit } from "../http/auth-failures.js";
import { isProbe } from "../http/probes.js";

export { DEFAULT_AUTH_FAILURE_LIMIT, type AuthFailureLimit } from "../http/auth-failures.js";

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

/** Adds an onRequest check (it runs before the body is read, so unauthenticated uploads cost nothing). */
export async function installBearerAuth(app: FastifyInstance, token: string, limit: AuthFailureLimit = DEFAULT_AUTH_FAILURE_LIMIT): Promise<void> {
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
    if (match !== null && timingSafeEqual(digest(match[1]!), expected)) return;
    await failures.fail(request);
    if (!match) throw new SluiceError("UNAUTHORIZED", "missing bearer token: send Authorization: Bearer <token> (the server's SLUICE_TOKEN or --token-file, or the api-token file in its data folder)");
    throw new SluiceError("UNAUTHORIZED", "wrong bearer token");
  });
}

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);
}
