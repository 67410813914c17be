/**
 * `BoundaryOptions.errorMode`: by default every failure is a result. With
 * `"original"` a failure of the wrapped call itself (OPERATION_FAILED) is handed back as
 * the very value that call threw, so a framework's own retry logic (the AI SDK's
 * `APICallError.isRetryable`, LangChain's `maxRetries`, the OpenAI client's status
 * errors) sees its own error class. The host records the failure first: the error and
 * finally stages run, facts, events and records keep it; only then is it thrown.
 */
import { fail } from "../pipeline/result.js";
import type { ErrorData } from "../errors/sluice-error.js";
import type { BoundaryOptions, BoundaryResult } from "../engine/call-types.js";

export const ERROR_MODES = ["result", "original"] as const;

/** PAYLOAD_INVALID naming the first wrong option, or null. Options are validated once, at the entry. */
export function optionsProblem(options: unknown): { ok: false; error: ErrorData } | null {
  if (options === undefined) return null;
  if (typeof options !== "object" || options === null || Array.isArray(options)) return fail("PAYLOAD_INVALID", `options must be an object when given, got ${options === null ? "null" : Array.isArray(options) ? "an array" : typeof options}`, { field: "options" });
  const o = options as Record<string, unknown>;
  if (o.errorMode !== undefined && !(ERROR_MODES as readonly unknown[]).includes(o.errorMode)) return fail("PAYLOAD_INVALID", `options.errorMode must be one of ${ERROR_MODES.join(", ")}`, { field: "options.errorMode" });
  if (o.retries !== undefined && !(Number.isInteger(o.retries) && (o.retries as number) >= 0 && (o.retries as number) <= 100)) return fail("PAYLOAD_INVALID", "options.retries must be an integer from 0 to 100", { field: "options.retries" });
  return null;
}

/** The wrapped call's own error, when the failure is one and the caller asked for it. */
export function originalError(mode: unknown, error: { code: string; details?: Record<string, unknown> | undefined }): { error: unknown } | undefined {
  return mode === "original" && error.code === "OPERATION_FAILED" && error.details !== undefined && Object.hasOwn(error.details, "cause") ? { error: error.details.cause } : undefined;
}

/** The result, or (errorMode "original") a rejection with the wrapped call's own error once the result is recorded. */
export function withErrorMode<T>(options: BoundaryOptions | undefined, pending: Promise<BoundaryResult<T>>): Promise<BoundaryResult<T>> {
  let mode: unknown;
  try { mode = options?.errorMode; } catch { return pending; }
  if (mode !== "original") return pending;
  return pending.then((r) => {
    const original = r.ok ? undefined : originalError(mode, r.error);
    if (original) throw original.error;
    return r;
  });
}
