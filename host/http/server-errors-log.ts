/**
 * Every 5xx answer is logged with its cause: the body says "see the server log", so the
 * log must have it. Error handlers note the error they answered with; routes that answer a
 * failed result themselves (resume, the gateway) note theirs; any other 5xx is still
 * logged with its status and route.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";

const causes = new WeakMap<FastifyRequest, unknown>();

/** Remembers what a 5xx answer to `request` is about, for the log. */
export function noteServerError(request: FastifyRequest, cause: unknown): void {
  causes.set(request, cause);
}

export function logServerErrors(app: FastifyInstance): void {
  app.addHook("onResponse", async (request, reply) => {
    if (reply.statusCode < 500) return;
    const cause = causes.get(request);
    request.log.error({ status: reply.statusCode, method: request.method, url: request.url.split("?")[0], ...errorFields(cause) }, "request answered with a server error");
  });
}

/**
 * `err` for pino, plus `detail`: every message down the error's causes, through a
 * SluiceError's `details.cause` too (how a boundary keeps the wrapped call's error), which
 * pino's serializer does not follow. Clients get the short message; the log has why (a
 * socket error and the address it tried, a database driver's text).
 *
 * A guest's own text (its abort message, `details.guestMessage`, which a hook may have
 * filled with the payload it read) never reaches the log: the error is logged as its name,
 * code and messages with that text withheld.
 */
export function errorFields(cause: unknown): { err?: Error | { type: string; code?: unknown; message: string }; cause?: unknown; detail?: string } {
  if (!(cause instanceof Error)) return { cause };
  const messages: string[] = [];
  const guestTexts: string[] = [];
  let at: unknown = cause;
  for (let depth = 0; at instanceof Error && depth < 8; depth++) {
    if (!messages.includes(at.message)) messages.push(at.message);
    const details = (at as { details?: { cause?: unknown; guestMessage?: unknown } }).details;
    if (typeof details?.guestMessage === "string" && details.guestMessage !== "") guestTexts.push(details.guestMessage);
    at = details?.cause instanceof Error ? details.cause : at.cause;
  }
  const detail = messages.length > 1 ? messages.join(" <- ") : undefined;
  if (guestTexts.length === 0) return { err: cause, ...(detail !== undefined ? { detail } : {}) };
  const withheld = (text: string): string => guestTexts.reduce((t, g) => t.split(g).join("[guest text withheld]"), text);
  return {
    err: { type: cause.name, code: (cause as { code?: unknown }).code, message: withheld(cause.message) },
    ...(detail !== undefined ? { detail: withheld(detail) } : {}),
  };
}
