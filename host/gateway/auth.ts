import type { FastifyReply, FastifyRequest } from "fastify";
import type { AuthFailures } from "../http/auth-failures.js";
import { SluiceError } from "../errors/sluice-error.js";
import type { GatewayKeyRecord, GatewayKeys } from "../keys/keys.js";

const callers = new WeakMap<FastifyRequest, GatewayKeyRecord>();

/**
 * Where each protocol's clients send their key: OpenAI's `Authorization: Bearer`,
 * Anthropic's `x-api-key`, Gemini's `x-goog-api-key`, or on Gemini's paths `?key=` (as the
 * Gemini API's own examples do; the log never shows a query string, options.ts).
 */
function keyOf(request: FastifyRequest): string | null {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "");
  if (bearer) return bearer[1]!;
  for (const name of ["x-api-key", "x-goog-api-key"]) {
    const v = request.headers[name];
    if (typeof v === "string" && v.trim() !== "") return v.trim();
  }
  const query = request.query as Record<string, unknown> | undefined;
  if (request.url.startsWith("/v1beta/") && typeof query?.key === "string" && query.key.trim() !== "") return query.key.trim();
  return null;
}

/** The key a request presents, wherever its protocol sends it ("" for none): what failed checks are counted by. */
export function presentedKey(request: FastifyRequest): string {
  return keyOf(request) ?? "";
}

/**
 * Checks the gateway key of a request before its body is read; the key's record becomes the
 * request's caller. Failures count against the client's address (auth-failures.ts).
 */
export async function authenticate(keys: GatewayKeys, request: FastifyRequest, reply: FastifyReply, failures: AuthFailures): Promise<void> {
  await failures.check(request, reply);
  const key = keyOf(request);
  const record = key !== null ? await keys.verify(key) : null;
  if (!record) {
    await failures.fail(request);
    const given = key !== null || request.headers.authorization !== undefined;
    throw new SluiceError("GATEWAY_KEY_INVALID", given ? "the API key is unknown or revoked" : "no API key: send Authorization: Bearer sk-sluice-... (or x-api-key, x-goog-api-key, ?key= on Gemini's paths)", {});
  }
  // A hooks key sits in agents' settings on developers' machines: it opens the hook door only.
  if (record.scope !== "gateway") {
    await failures.fail(request);
    throw new SluiceError("GATEWAY_KEY_INVALID", `the API key has scope ${record.scope}: it opens the coding agents' hook door only, not the model gateway (make one with sluice keys create --space S)`, {});
  }
  callers.set(request, record);
}

/** The key a request was authenticated with. */
export function callerOf(request: FastifyRequest): GatewayKeyRecord {
  const record = callers.get(request);
  if (!record) throw new SluiceError("INTERNAL_ERROR", "a gateway route ran without authentication; register it inside gatewayRoutes");
  return record;
}
