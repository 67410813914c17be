/**
 * Any error as the OpenAI error body and status clients parse. A hook's reject or block
 * shows the hook's code and reason; an upstream error a client can act on (400, 429, …)
 * keeps the upstream's status and body; everything else carries its Sluice code.
 * `sluice_code` always holds the Sluice code, for callers that match on it.
 */
import type { FastifyReply } from "fastify";
import { ERROR_CODES, type ErrorCode } from "../errors/codes.js";
import { SluiceError, isSluiceError } from "../errors/sluice-error.js";
import type { WireError } from "./wire.js";
import { errorFields, noteServerError } from "../http/server-errors-log.js";
import { busyRetryAfter } from "../http/retry-after.js";

/**
 * Answers `error` (before any byte was sent) in OpenAI's format, with `x-should-retry: false`
 * when retrying cannot help (OpenAI clients honour it); a 5xx is noted for the server log
 * with its cause.
 */
export function replyError(reply: FastifyReply, error: SluiceError): FastifyReply {
  const { status, body } = toOpenAIError(error, String(reply.request.id));
  if (status >= 500) noteServerError(reply.request, error);
  if (!shouldRetry(error)) reply.header("x-should-retry", "false");
  else reply.headers(retryAfterHeaders(error));
  return reply.code(status).send(body);
}

/** When to retry (retry-after.ts): the upstream's own wait when it gave one, a second when the gateway was busy. */
export function retryAfterHeaders(error: SluiceError): Record<string, string> {
  const e = explaining(error);
  const { retryAfterSeconds: seconds, retryAfterMs: ms } = e.details as { retryAfterSeconds?: unknown; retryAfterMs?: unknown };
  const headers: Record<string, string> = {};
  if (e.code === "UPSTREAM_FAILED") {
    if (typeof seconds === "number") headers["retry-after"] = String(seconds);
    if (typeof ms === "number") headers["retry-after-ms"] = String(ms);
    return headers;
  }
  const busy = busyRetryAfter(e.code);
  if (busy !== undefined) headers["retry-after"] = busy;
  return headers;
}

function typeFor(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  return status < 500 ? "invalid_request_error" : "server_error";
}

/** The error that explains `error`: the boundary wraps what the upstream call threw (OPERATION_FAILED), and the upstream's own code is the one a client acts on. */
function explaining(error: SluiceError): SluiceError {
  return error.code === "OPERATION_FAILED" && isSluiceError(error.details.cause) ? error.details.cause : error;
}

/** A thrown value normalised once: Fastify's own errors (bad JSON, body too large) get codes too. */
export function asSluiceError(err: unknown): SluiceError {
  if (isSluiceError(err)) return err;
  const e = err as { statusCode?: number; code?: string; message?: string };
  if (e?.code === "FST_ERR_CTP_BODY_TOO_LARGE") return new SluiceError("PAYLOAD_TOO_LARGE", "the request body is too large");
  if (e?.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE" || e?.statusCode === 415) return new SluiceError("MEDIA_TYPE_UNSUPPORTED", "send the body as application/json");
  if (typeof e?.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500) return new SluiceError("REQUEST_INVALID", e.message ?? "invalid request");
  return new SluiceError("INTERNAL_ERROR", "internal error", {}, { cause: err });
}

/**
 * Errors a repeated request can fix: the upstream or the host was busy, down or slow.
 * Everything else (a hook failed, rejected or blocked, the model's answer is invalid, the
 * request is wrong) fails the same way again, and would call the upstream again for nothing.
 */
const RETRYABLE = new Set<ErrorCode>(["UPSTREAM_TIMEOUT", "CONNECTIONS_FULL", "QUEUE_FULL", "WORKER_CRASHED", "EXECUTOR_CLOSED", "STORE_UNAVAILABLE", "DEADLINE_EXCEEDED"]);

/** Whether a client may retry the request that failed with `error` (the gateway sends `x-should-retry: false` otherwise). */
export function shouldRetry(error: SluiceError): boolean {
  const e = explaining(error);
  if (e.code === "UPSTREAM_FAILED") {
    // The upstream's own status decides: 429 and 5xx may pass, other 4xx will not; unreachable may come back.
    const status = e.details.status;
    return typeof status !== "number" || status === 429 || status === 408 || status >= 500;
  }
  return RETRYABLE.has(e.code);
}

/**
 * The error event that ends a stream whose headers are sent (OpenAI clients raise it as an
 * APIError); a server error is logged with its detail first, as {@link replyError} does.
 */
export function streamErrorBody(reply: FastifyReply, err: unknown): WireError {
  const error = asSluiceError(err);
  const { status, body } = toOpenAIError(error, String(reply.request.id));
  if (status >= 500) reply.request.log.error({ method: "POST", url: reply.request.url, ...errorFields(error) }, "stream ended with a server error");
  return body;
}

/**
 * Codes whose message names the server's own resources (a database driver's text, a file,
 * an address): a gateway client gets what failed, the log gets the message.
 */
const WITHHELD: Partial<Record<ErrorCode, string>> = {
  INTERNAL_ERROR: "internal error",
  STORE_UNAVAILABLE: "the gateway's store cannot be read or written",
  STORE_FULL: "the gateway's store is full",
  STORE_COMMIT_UNKNOWN: "the gateway's store lost its connection while it wrote: the change may or may not be stored",
};

/**
 * `requestId`: a server error's message ends with it, so a client can quote it and an
 * operator find the log line that has the detail.
 */
export function toOpenAIError(error: SluiceError, requestId?: string): { status: number; body: WireError } {
  const e = explaining(error);
  const upstreamStatus = e.details.status;
  if (e.code === "UPSTREAM_FAILED" && typeof upstreamStatus === "number" && typeof e.details.error === "object" && e.details.error !== null) {
    const upstream = e.details.error as Record<string, unknown>;
    return {
      status: upstreamStatus,
      body: { error: { message: String(upstream.message ?? e.message), type: String(upstream.type ?? typeFor(upstreamStatus)), code: typeof upstream.code === "string" ? upstream.code : null, param: typeof upstream.param === "string" ? upstream.param : null, sluice_code: e.code } },
    };
  }
  const status = ERROR_CODES[e.code].status;
  const hook = e.code === "HOOK_REJECTED" || e.code === "HOOK_BLOCKED";
  const reason = e.details.reason;
  const message = hook && typeof reason === "string" && reason !== "" ? reason : WITHHELD[e.code] ?? e.message;
  return {
    status,
    body: {
      error: {
        message: status >= 500 && requestId !== undefined ? `${message} (request id ${requestId})` : message,
        type: typeFor(status),
        code: hook && typeof e.details.hookCode === "string" ? e.details.hookCode : e.code,
        param: typeof e.details.param === "string" ? e.details.param : null,
        sluice_code: e.code,
      },
    },
  };
}
