/**
 * Any error as Anthropic's error body (`{"type":"error","error":{"type","message"}}`) with
 * the same status and message the OpenAI routes give it (openai-error.ts decides both, once):
 * Claude Code and the Anthropic SDK read `error.type` and show `error.message`. An upstream
 * Anthropic error keeps its own type, answered before the stream or sent in it.
 */
import type { FastifyReply } from "fastify";
import type { SluiceError } from "../errors/sluice-error.js";
import { toOpenAIError } from "./openai-error.js";
import { explaining, replyWith, streamErrorWith } from "./gateway-error.js";

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

/** The type of an error event the upstream sent mid-stream (`overloaded_error`, …): its own, which Anthropic clients act on. */
function streamedType(error: SluiceError): string | undefined {
  const e = explaining(error);
  const type = e.code === "UPSTREAM_FAILED" ? (e.details.upstream as { type?: unknown } | undefined)?.type : undefined;
  return typeof type === "string" && TYPES.has(type) ? type : undefined;
}

export function toAnthropicError(error: SluiceError, requestId?: string): { status: number; body: AnthropicErrorBody } {
  const { status, body } = toOpenAIError(error, requestId);
  const type = streamedType(error) ?? (TYPES.has(body.error.type) ? body.error.type : typeFor(status));
  return { status, body: { type: "error", error: { type, message: body.error.message, ...(body.error.sluice_code ? { sluice_code: body.error.sluice_code } : {}) } } };
}

/** Answers `error` before any byte was sent, in Anthropic's format (gateway-error.ts replyWith). */
export const replyAnthropicError = (reply: FastifyReply, error: SluiceError): FastifyReply => replyWith(toAnthropicError, reply, error);

/** The error event that ends a stream whose headers are sent. */
export const anthropicStreamError = (reply: FastifyReply, err: unknown): AnthropicErrorBody => streamErrorWith(toAnthropicError, reply, err);
