/**
 * Bearer-token authentication on every route. Tokens are compared as sha256 digests with
 * timingSafeEqual, so neither length nor content leaks through timing. Failures are
 * counted per client address (@fastify/rate-limit); an address with too many recent
 * failures is refused with RATE_LIMITED, whatever token it sends, until its window ends,
 * so a wrong-token loop cannot test tokens quickly.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import fastifyRateLimit from "@fastify/rate-limit";
import type { FastifyInstance } from "fastify";
import { SluiceError } from "../errors/sluice-error.js";

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

export interface AuthFailureLimit {
  /** Failed authentications an address may make within the window. Default 20. */
  max: number;
  /** Default 60 000. */
  windowMs: number;
}

export const DEFAULT_AUTH_FAILURE_LIMIT: AuthFailureLimit = { max: 20, windowMs: 60_000 };

/** Adds an onRequest check (it runs before the body is read, so unauthenticated uploads cost nothing). */
export async function installBearerAuth(app: FastifyInstance, token: string, limit: AuthFailureLimit = DEFAULT_AUTH_FAILURE_LIMIT): Promise<void> {
  const expected = digest(token);
  await app.register(fastifyRateLimit, { global: false });
  const failures = app.createRateLimit({ max: limit.max, timeWindow: limit.windowMs, keyGenerator: (request) => request.ip });
  app.addHook("onRequest", async (request, reply) => {
    // A peek first: an address over its limit learns nothing, not even that a token is right.
    const seen = await failures(request, { increment: false });
    if (!seen.isAllowed && seen.remaining === 0) {
      void reply.header("retry-after", String(Math.max(1, seen.ttlInSeconds)));
      throw new SluiceError("RATE_LIMITED", `too many failed authentications from this address; retry in ${Math.max(1, seen.ttlInSeconds)} s`, { retryAfterSeconds: Math.max(1, seen.ttlInSeconds) });
    }
    const header = request.headers.authorization;
    const match = typeof header === "string" ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    const ok = match !== null && timingSafeEqual(digest(match[1]!), expected);
    if (ok) return;
    await failures(request);
    if (!match) throw new SluiceError("UNAUTHORIZED", "missing bearer token: send Authorization: Bearer <token> (the server's SLUICE_TOKEN or --token-file, or the api-token file in its data folder)");
    throw new SluiceError("UNAUTHORIZED", "wrong bearer token");
  });
}

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);
}
