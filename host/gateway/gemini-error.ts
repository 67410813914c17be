/**
 * Any error as the Gemini API's error body (`{"error":{"code","message","status"}}`) with
 * the status and message the OpenAI routes give it (openai-error.ts decides both, once):
 * @google/genai and Gemini CLI read `error.message` and `error.status`.
 */
import type { FastifyReply } from "fastify";
import type { SluiceError } from "../errors/sluice-error.js";
import { toOpenAIError } from "./openai-error.js";
import { replyWith, streamErrorWith } from "./gateway-error.js";

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

/** Answers `error` before any byte was sent, in Gemini's format (gateway-error.ts replyWith). */
export const replyGeminiError = (reply: FastifyReply, error: SluiceError): FastifyReply => replyWith(toGeminiError, reply, error);

/** The error event that ends a stream whose headers are sent. */
export const geminiStreamError = (reply: FastifyReply, err: unknown): GeminiErrorBody => streamErrorWith(toGeminiError, reply, err);
