/**
 * Any error as the OpenAI error body and status clients parse. A hook's reject or block
 * shows the hook's code and reason; an upstream error a client can act on (400, 429, …)
 * keeps the upstream's status and body; everything else carries its Sluice code.
 * `sluice_code` always holds the Sluice code, for callers that match on it.
 */
import type { FastifyReply } from "fastify";
import { ERROR_CODES, type ErrorCode } from "../errors/codes.js";
import type { SluiceError } from "../errors/sluice-error.js";
import type { WireError } from "./wire.js";
import { explaining, replyWith, streamErrorWith } from "./gateway-error.js";

/** Answers `error` (before any byte was sent) in OpenAI's format (gateway-error.ts replyWith). */
export const replyError = (reply: FastifyReply, error: SluiceError): FastifyReply => replyWith(toOpenAIError, reply, error);

/** The error event that ends an OpenAI stream whose headers are sent. */
export const streamErrorBody = (reply: FastifyReply, err: unknown): WireError => streamErrorWith(toOpenAIError, reply, err);

function typeFor(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 429) return "rate_limit_error";
  return status < 500 ? "invalid_request_error" : "server_error";
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
