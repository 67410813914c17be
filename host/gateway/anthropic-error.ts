/**
 * Any error as Anthropic's error body (`{"type":"error","error":{"type","message"}}`) with
 * the same status and message the OpenAI routes give it (openai-error.ts decides both, once):
 * Claude Code and the Anthropic SDK read `error.type` and show `error.message`. An upstream
 * Anthropic error keeps its own type.
 */
import type { FastifyReply } from "fastify";
import type { SluiceError } from "../errors/sluice-error.js";
import { errorFields, noteServerError } from "../http/server-errors-log.js";
import { asSluiceError, retryAfterHeaders, shouldRetry, toOpenAIError } from "./openai-error.js";

export interface AnthropicErrorBody { type: "error"; error: { type: string; message: string; sluice_code?: string } }

const TYPES = new Set(["invalid_request_error", "authentication_error", "permission_error", "not_found_error", "request_too_large", "rate_limit_error", "api_error", "overloaded_error", "timeout_error", "billing_error"]);

function typeFor(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit_error";
  if (status === 503 || status === 529) return "overloaded_error";
  if (status === 504) return "timeout_error";
  return status < 500 ? "invalid_request_error" : "api_error";
}

export function toAnthropicError(error: SluiceError, requestId?: string): { status: number; body: AnthropicErrorBody } {
  const { status, body } = toOpenAIError(error, requestId);
  const type = TYPES.has(body.error.type) ? body.error.type : typeFor(status);
  return { status, body: { type: "error", error: { type, message: body.error.message, ...(body.error.sluice_code ? { sluice_code: body.error.sluice_code } : {}) } } };
}

/** Answers `error` before any byte was sent; a 5xx is noted for the server log with its cause. */
export function replyAnthropicError(reply: FastifyReply, error: SluiceError): FastifyReply {
  const { status, body } = toAnthropicError(error, String(reply.request.id));
  if (status >= 500) noteServerError(reply.request, error);
  if (!shouldRetry(error)) reply.header("x-should-retry", "false");
  else reply.headers(retryAfterHeaders(error));
  return reply.code(status).send(body);
}

/** The `error` event that ends a stream whose headers are sent (the SDK raises it as an APIError). */
export function anthropicStreamError(reply: FastifyReply, err: unknown): AnthropicErrorBody {
  const error = asSluiceError(err);
  const { status, body } = toAnthropicError(error, String(reply.request.id));
  if (status >= 500) reply.request.log.error({ method: "POST", url: reply.request.url, ...errorFields(error) }, "stream ended with a server error");
  return body;
}
