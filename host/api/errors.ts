/**
 * One translation from anything thrown in a route to the wire: `{ error: { code, message,
 * details } }` with the catalogue's HTTP status. Fastify's own errors (validation, body
 * size, bad JSON) are given catalogue codes here, so clients match on one vocabulary.
 */
import type { FastifyError, FastifyInstance } from "fastify";
import { ERROR_CODES, type ErrorCode } from "../errors/codes.js";
import { SluiceError, type ErrorData } from "../errors/sluice-error.js";
import type { ErrorObject } from "ajv";
import { explainErrors, problemsText } from "../registry/validation-message.js";
import { isLookupError } from "../registry/lookup-errors.js";
import { noteServerError } from "../http/server-errors-log.js";
import { busyRetryAfter } from "../http/retry-after.js";

/** The JSON body of every error response of the management API: the catalogue code, the message and details. */
export interface ErrorBody {
  error: ErrorData;
}

/** Normalises an error thrown while serving a request into a catalogue error. */
export function toSluiceError(err: unknown, request?: { body?: unknown; query?: unknown; params?: unknown }): SluiceError {
  if (err instanceof SluiceError) return err;
  const e = err as Partial<FastifyError> & { validation?: unknown[]; validationContext?: string };
  if (e.validation) {
    // Said the way the registry says it: the path, the value, the allowed values.
    const context = e.validationContext ?? "request";
    const data = context === "body" ? request?.body : context === "querystring" ? request?.query : context === "params" ? request?.params : undefined;
    const problems = explainErrors(e.validation as ErrorObject[], data);
    return new SluiceError("REQUEST_INVALID", `${context}: ${problems.length ? problemsText(problems) : e.message ?? "is invalid"}`, { errors: e.validation });
  }
  if (e.code === "FST_ERR_CTP_BODY_TOO_LARGE" || e.statusCode === 413) {
    return new SluiceError("PAYLOAD_TOO_LARGE", `the request body is larger than this route accepts: ${e.message ?? ""}`.trim());
  }
  if (e.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE" || e.statusCode === 415) {
    return new SluiceError("MEDIA_TYPE_UNSUPPORTED", "send the body as application/json");
  }
  if (typeof e.code === "string" && e.code.startsWith("FST_ERR_CTP") || e.statusCode === 400) {
    return new SluiceError("REQUEST_INVALID", `the request body cannot be read: ${e.message ?? "bad request"}; send JSON with content-type application/json`);
  }
  return new SluiceError("INTERNAL_ERROR", "internal error; see the server log", {}, { cause: err });
}

/**
 * `text` with every occurrence of the given folders replaced: messages built from file
 * system or database errors can name the data folder, which a client has no business
 * knowing (it tells where the operator keeps secrets, and whose machine it is).
 */
export function withoutPaths(text: string, paths: readonly string[]): string {
  let out = text;
  for (const p of paths) if (p.length > 1) out = out.split(p).join("<host path>");
  return out;
}

/** How a client of this API lists (or updates) what a registry lookup did not find (or found taken). */
const ROUTE_HINTS: Partial<Record<ErrorCode, (details: Record<string, unknown>) => string>> = {
  PLUGIN_NOT_FOUND: () => "list them with GET /api/v1/plugins",
  BINDING_NOT_FOUND: () => "list them with GET /api/v1/bindings",
  RELEASE_NOT_FOUND: () => "list them with GET /api/v1/releases",
  BINDING_CONFLICT: (d) => `update it with PUT /api/v1/bindings/${String(d.binding)}`,
};

/** The registry's lookup errors with this API's route to list or update what exists; others as they are. */
export function withRouteHint(err: SluiceError): SluiceError {
  const hint = isLookupError(err) ? ROUTE_HINTS[err.code]?.(err.details) : undefined;
  return hint ? new SluiceError(err.code, `${err.message}; ${hint}`, err.details) : err;
}

/** Installs the error and not-found handlers on `app`; `hidePaths` are folders kept out of messages. */
export function installErrorHandlers(app: FastifyInstance, options: { hidePaths?: readonly string[] } = {}): void {
  const hide = [...(options.hidePaths ?? [])].filter((p) => p.length > 1).sort((a, b) => b.length - a.length);
  app.setErrorHandler((err, request, reply) => {
    const error = withRouteHint(toSluiceError(err, request));
    const status = ERROR_CODES[error.code].status;
    if (status >= 500) noteServerError(request, err);
    if (error.code === "UNAUTHORIZED") void reply.header("www-authenticate", 'Bearer realm="sluice"');
    const wait = busyRetryAfter(error.code);
    if (wait !== undefined) void reply.header("retry-after", wait);
    // The "request completed" line (logged through the request's logger) then carries the
    // catalogue code: an operator reading a 4xx sees why without the body.
    request.log = request.log.child({ errorCode: error.code });
    (reply as { log: typeof request.log }).log = request.log;
    const data = error.toData();
    const body = { error: hide.length ? { ...data, message: withoutPaths(data.message, hide), details: JSON.parse(withoutPaths(JSON.stringify(data.details ?? {}), hide.map((p) => JSON.stringify(p).slice(1, -1)))) } : data };
    return reply.status(status).send(body satisfies ErrorBody);
  });
  app.setNotFoundHandler((request, reply) => {
    const code: ErrorCode = "ROUTE_NOT_FOUND";
    return reply.status(ERROR_CODES[code].status).send({ error: { code, message: `no route ${request.method} ${request.url.split("?")[0]}; see GET /api/v1/openapi.json`, details: {} } } satisfies ErrorBody);
  });
}

/** JSON Schema of the error body, for the OpenAPI document. */
export const ERROR_BODY_SCHEMA = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "string", enum: Object.keys(ERROR_CODES) },
        message: { type: "string" },
        details: { type: "object", additionalProperties: true },
      },
    },
  },
} as const;
