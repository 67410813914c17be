/**
 * What every wire format's errors share: which error explains a failure, how a thrown value
 * becomes a catalogue error, whether a client may retry and when, and how an error is
 * answered before the first byte or ends a stream after it. Each format (openai-error.ts,
 * anthropic-error.ts, gemini-error.ts) only renders the body.
 */
import type { FastifyReply } from "fastify";
import type { ErrorCode } from "../errors/codes.js";
import { SluiceError, isSluiceError } from "../errors/sluice-error.js";
import { errorFields, noteServerError } from "../http/server-errors-log.js";
import { busyRetryAfter } from "../http/retry-after.js";

/** A wire format's rendering of an error: its status and body (`requestId` ends a server error's message). */
export type RenderError<B> = (error: SluiceError, requestId?: string) => { status: number; body: B };

/** The error that explains `error`: the boundary wraps what the upstream call threw (OPERATION_FAILED), and the upstream's own code is the one a client acts on. */
export function explaining(error: SluiceError): SluiceError {
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

/**
 * Answers `error` before any byte was sent, in the format `render` writes, with
 * `x-should-retry: false` when retrying cannot help (the providers' clients honour it); a
 * 5xx is noted for the server log with its cause.
 */
export function replyWith<B>(render: RenderError<B>, reply: FastifyReply, error: SluiceError): FastifyReply {
  const { status, body } = render(error, String(reply.request.id));
  if (status >= 500) noteServerError(reply.request, error);
  if (!shouldRetry(error)) reply.header("x-should-retry", "false");
  else reply.headers(retryAfterHeaders(error));
  return reply.code(status).send(body);
}

/** The error event that ends a stream whose headers are sent (the clients raise it as an API error); a server error is logged with its detail first. */
export function streamErrorWith<B>(render: RenderError<B>, reply: FastifyReply, err: unknown): B {
  const error = asSluiceError(err);
  const { status, body } = render(error, String(reply.request.id));
  if (status >= 500) reply.request.log.error({ method: "POST", url: reply.request.url, ...errorFields(error) }, "stream ended with a server error");
  return body;
}
