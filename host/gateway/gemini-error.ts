/**
 * Any error as the Gemini API's error body (`{"error":{"code","message","status"}}`) with
 * the status and message the OpenAI routes give it (openai-error.ts decides both, once):
 * @google/genai and Gemini CLI read `error.message` and `error.status`.
 */
import type { FastifyReply } from "fastify";
import type { SluiceError } from "../errors/sluice-error.js";
import { errorFields, noteServerError } from "../http/server-errors-log.js";
import { asSluiceError, retryAfterHeaders, shouldRetry, toOpenAIError } from "./openai-error.js";

export interface GeminiErrorBody { error: { code: number; message: string; status: string; sluice_code?: string } }

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

export function toGeminiError(error: SluiceError, requestId?: string): { status: number; body: GeminiErrorBody } {
  const { status, body } = toOpenAIError(error, requestId);
  return { status, body: { error: { code: status, message: body.error.message, status: statusName(status), ...(body.error.sluice_code ? { sluice_code: body.error.sluice_code } : {}) } } };
}

export function replyGeminiError(reply: FastifyReply, error: SluiceError): FastifyReply {
  const { status, body } = toGeminiError(error, String(reply.request.id));
  if (status >= 500) noteServerError(reply.request, error);
  if (!shouldRetry(error)) reply.header("x-should-retry", "false");
  else reply.headers(retryAfterHeaders(error));
  return reply.code(status).send(body);
}

/** The error a stream whose headers are sent ends with, as one more event. */
export function geminiStreamError(reply: FastifyReply, err: unknown): GeminiErrorBody {
  const error = asSluiceError(err);
  const { status, body } = toGeminiError(error, String(reply.request.id));
  if (status >= 500) reply.request.log.error({ method: "POST", url: reply.request.url, ...errorFields(error) }, "stream ended with a server error");
  return body;
}
