/**
 * Bearer-token authentication on every route. Tokens are compared as sha256 digests with
 * timingSafeEqual, so neither length nor content leaks through timing.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { SluiceError } from "../errors/sluice-error.js";

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

/** Adds an onRequest check (it runs before the body is read, so unauthenticated uploads cost nothing). */
export function installBearerAuth(app: FastifyInstance, token: string): void {
  const expected = digest(token);
  app.addHook("onRequest", async (request) => {
    const header = request.headers.authorization;
    const match = typeof header === "string" ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw new SluiceError("UNAUTHORIZED", "missing bearer token: send Authorization: Bearer <token> (the server's --token or SLUICE_TOKEN)");
    if (!timingSafeEqual(digest(match[1]!), expected)) throw new SluiceError("UNAUTHORIZED", "wrong bearer token");
  });
}

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);
}
