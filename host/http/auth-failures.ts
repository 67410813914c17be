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

export async function authFailures(app: FastifyInstance, limit: AuthFailureLimit = DEFAULT_AUTH_FAILURE_LIMIT): Promise<AuthFailures> {
  // Registered once per server, even when the gateway's routes are mounted on the API's.
  if (!app.hasDecorator("createRateLimit")) await app.register(fastifyRateLimit, { global: false });
  const counter = app.createRateLimit({ max: limit.max, timeWindow: limit.windowMs, keyGenerator: failureKey });
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

/**
 * Every header a credential may come in: the bearer token, and the gateway's keys as
 * Anthropic (`x-api-key`) and Gemini (`x-goog-api-key`, or the `key` query parameter)
 * clients send them. Counting the
 * bearer header alone put every client of those two on an address in one count, so a loop
 * on a wrong key locked out the right one.
 */
const CREDENTIAL_HEADERS = ["authorization", "x-api-key", "x-goog-api-key"] as const;

/** The client's address and a digest of the credentials it sends (never a credential itself). */
function failureKey(request: FastifyRequest): string {
  const hash = createHash("sha256");
  for (const name of CREDENTIAL_HEADERS) {
    const sent = request.headers[name] ?? "";
    hash.update(`${name}\n${Array.isArray(sent) ? sent.join(",") : sent}\n`);
  }
  const query = request.query as Record<string, unknown> | undefined;
  hash.update(`key\n${typeof query?.key === "string" ? query.key : ""}\n`);
  return `${request.ip} ${hash.digest("base64url").slice(0, 22)}`;
}
