/**
 * Failed authentications counted per client address and presented credential
 * (@fastify/rate-limit), shared by the management API's token check and the gateway's key
 * check. A script looping on a wrong token is refused with RATE_LIMITED until its window
 * ends, while a person on the same address with the right token carries on: the count is
 * of that address sending that credential. Guessing gains nothing from the split, since
 * every token and key is 256 random bits; the limit stops a runaway loop, and the answer to
 * a limited pair never says whether its credential was right.
 */
import { createHash } from "node:crypto";
import fastifyRateLimit from "@fastify/rate-limit";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { SluiceError } from "../errors/sluice-error.js";

export interface AuthFailureLimit {
  /** Failed authentications an address may make with one credential within the window. Default 20. */
  max: number;
  /** Default 60 000. */
  windowMs: number;
}

export const DEFAULT_AUTH_FAILURE_LIMIT: AuthFailureLimit = { max: 20, windowMs: 60_000 };

export interface AuthFailures {
  /** Throws RATE_LIMITED (with retry-after) when the request's address is over its limit. */
  check(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Counts one failure of the request's address. */
  fail(request: FastifyRequest): Promise<void>;
}

/**
 * `credentialOf`: where the check finds the credential it verifies (default the bearer
 * token; the gateway's key may come as x-api-key, x-goog-api-key or ?key= too), so each
 * credential has its count.
 */
export async function authFailures(app: FastifyInstance, limit: AuthFailureLimit = DEFAULT_AUTH_FAILURE_LIMIT, credentialOf: CredentialOf = bearerToken): Promise<AuthFailures> {
  // Registered once per server, even when the gateway's routes are mounted on the API's.
  if (!app.hasDecorator("createRateLimit")) await app.register(fastifyRateLimit, { global: false });
  const counter = app.createRateLimit({ max: limit.max, timeWindow: limit.windowMs, keyGenerator: (request) => failureKey(request, credentialOf) });
  return {
    check: async (request, reply) => {
      // A peek: checking does not count.
      const seen = await counter(request, { increment: false });
      if (seen.isAllowed || seen.remaining > 0) return;
      const retry = Math.max(1, seen.ttlInSeconds);
      void reply.header("retry-after", String(retry));
      throw new SluiceError("RATE_LIMITED", `too many failed authentications from this address with this credential; retry in ${retry} s`, { retryAfterSeconds: retry });
    },
    fail: async (request) => { await counter(request); },
  };
}

/** The credential a request presents, as the check that reads it finds it. */
export type CredentialOf = (request: FastifyRequest) => string;

/** The bearer token: the management API's and the agents' door's credential. */
const bearerToken: CredentialOf = (request) => {
  const sent = request.headers.authorization ?? "";
  return typeof sent === "string" ? sent : String(sent);
};

/**
 * The client's address and a digest of the credential the check reads (never the credential
 * itself). Only that credential: a header or query parameter the check ignores must not
 * give a guesser a fresh count with every value.
 */
function failureKey(request: FastifyRequest, credentialOf: CredentialOf): string {
  return `${request.ip} ${createHash("sha256").update(credentialOf(request)).digest("base64url").slice(0, 22)}`;
}
