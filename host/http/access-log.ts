/**
 * One access line per request, written when its answer has gone out: method, path,
 * address, status, time (and the error code the error handlers add). Fastify's default
 * also logs "incoming request" as the request arrives, on the answer's path (a few
 * hundredths of a millisecond of every call); that line is logged at `debug` only, for an
 * operator looking for a request that never ends.
 */
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { isProbe } from "./probes.js";

/** Levels at which a request's arrival is logged. */
const ARRIVALS = new Set(["debug", "trace"]);

export class AccessLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    // Checked first: at info nothing is built on the answer's path.
    if (ARRIVALS.has(request.log.level)) request.log.debug({ req: request }, "incoming request");
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, "request errored");
    // A probe every few seconds would fill the log with its 200s: those at debug, a 503 as any answer.
    else if (reply.statusCode === 200 && isProbe(request)) reply.log.debug({ req: request, res: reply, responseTime: reply.elapsedTime }, "request completed");
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, "request completed");
  }
}

/**
 * A request whose client went away before its answer was out (a disconnect, a client's own
 * timeout) never finishes, and Fastify writes its access line on the answer's finish: the
 * load it made was invisible. It gets its own line, "request aborted", with the time it ran
 * and no status. (Fastify's onRequestAbort hook covers only a client gone while the request
 * itself was arriving.)
 */
export function logAbortedRequests(app: FastifyInstance): void {
  app.addHook("onRequest", (request, reply, done) => {
    reply.raw.once("close", () => {
      if (!reply.raw.writableFinished) request.log.info({ req: request, aborted: true, responseTime: reply.elapsedTime }, "request aborted");
    });
    done();
  });
}
