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
    request.log.error({ err: cause instanceof Error ? cause : undefined, cause: cause instanceof Error ? undefined : cause, status: reply.statusCode, method: request.method, url: request.url.split("?")[0] }, "request answered with a server error");
  });
}
