import type { ErrorCode } from "../errors/codes.js";
import type { ErrorData } from "../errors/sluice-error.js";

/** The answer of every rule in the pipeline: a returned value, never a throw. */
export type Checked = { ok: true } | { ok: false; error: ErrorData };

/** Builds the failing side of {@link Checked} (or of any `{ ok: false, error }` result). */
export function fail(code: ErrorCode, message: string, details?: Record<string, unknown>): { ok: false; error: ErrorData } {
  return { ok: false, error: details ? { code, message, details } : { code, message } };
}

export const OK: { ok: true } = Object.freeze({ ok: true as const });
