/**
 * Any error as the Gemini API's error body (`{"error":{"code","message","status"}}`) with
 * the status and message the OpenAI routes give it (openai-error.ts decides both, once):
 * @google/genai and Gemini CLI read `error.message` and `error.status`.
 */
import type { FastifyReply } from "fastify";
import type { SluiceError } from "../errors/sluice-error.js";
import { toOpenAIError } from "./openai-error.js";
import { explaining, replyWith, retryAfterHeaders, shouldRetry, streamErrorWith } from "./gateway-error.js";

export interface GeminiErrorBody { error: { code: number; message: string; status: string; details?: Record<string, unknown>[]; sluice_code?: string } }

function statusName(status: number): string {
  if (status === 400 || status === 422) return "INVALID_ARGUMENT";
  if (status === 401) return "UNAUTHENTICATED";
  if (status === 403) return "PERMISSION_DENIED";
  if (status === 404) return "NOT_FOUND";
  if (status === 409) return "ABORTED";
  if (status === 413) return "INVALID_ARGUMENT";
  if (status === 429) return "RESOURCE_EXHAUSTED";
  if (status === 499) return "CANCELLED";
  if (status === 503) return "UNAVAILABLE";
  if (status === 504) return "DEADLINE_EXCEEDED";
  return status < 500 ? "FAILED_PRECONDITION" : "INTERNAL";
}

/** The upstream's own status name, when the error is a Google error relayed, answered or sent in its stream (FAILED_PRECONDITION is a 400 too). */
function upstreamStatusName(error: SluiceError): string | undefined {
  const e = explaining(error);
  const upstream = e.code === "UPSTREAM_FAILED" ? ((e.details.error ?? e.details.upstream) as { status?: unknown } | undefined) : undefined;
  return typeof upstream?.status === "string" && /^[A-Z][A-Z_]*$/.test(upstream.status) ? upstream.status : undefined;
}

/**
 * A retryable error's wait as Google writes it, a RetryInfo detail, which Gemini CLI reads
 * to know how long to wait (the upstream's own wait, or the gateway's when it was busy).
 */
function retryDetails(error: SluiceError): Record<string, unknown>[] {
  const seconds = shouldRetry(error) ? retryAfterHeaders(error)["retry-after"] : undefined;
  return seconds === undefined ? [] : [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${seconds}s` }];
}

export function toGeminiError(error: SluiceError, requestId?: string): { status: number; body: GeminiErrorBody } {
  const { status, body } = toOpenAIError(error, requestId);
  const details = retryDetails(error);
  // The offending field of a bad request, where Google names one.
  if (status === 400 && body.error.param !== null && body.error.sluice_code !== "UPSTREAM_FAILED") {
    details.push({ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field: body.error.param, description: body.error.message }] });
  }
  return {
    status,
    body: {
      error: {
        code: status, message: body.error.message, status: upstreamStatusName(error) ?? statusName(status),
        ...(details.length > 0 ? { details } : {}),
        ...(body.error.sluice_code ? { sluice_code: body.error.sluice_code } : {}),
      },
    },
  };
}

/** Answers `error` before any byte was sent, in Gemini's format (gateway-error.ts replyWith). */
export const replyGeminiError = (reply: FastifyReply, error: SluiceError): FastifyReply => replyWith(toGeminiError, reply, error);

/** The error event that ends a stream whose headers are sent. */
export const geminiStreamError = (reply: FastifyReply, err: unknown): GeminiErrorBody => streamErrorWith(toGeminiError, reply, err);
