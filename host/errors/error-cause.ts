import { ERROR_CODES, type ErrorCode } from "./codes.js";
import { SluiceError } from "./sluice-error.js";

/**
 * The catalogued error a wrapping error carries in `details.cause`: a fail-closed hook's
 * own failure inside HOOK_FAILED (`GUEST_FUEL_EXHAUSTED`, `GUEST_TIMEOUT`, `GUEST_TRAP`,
 * ...), so an author sees which limit or fault it was, not only that a hook failed. Code
 * and message only (details may carry figures an author reads from the record instead);
 * undefined when the cause is absent or not one of the catalogue's errors (a thrown
 * `Error` from a wrapped call is not shown this way).
 * @example causeOf(result.error)?.code // "GUEST_FUEL_EXHAUSTED"
 */
export function causeOf(error: { details?: Record<string, unknown> | undefined }): { code: ErrorCode; message: string } | undefined {
  const cause = error.details?.cause;
  if (typeof cause !== "object" || cause === null || (cause instanceof Error && !(cause instanceof SluiceError))) return undefined;
  const { code, message } = cause as { code?: unknown; message?: unknown };
  if (typeof code !== "string" || !Object.hasOwn(ERROR_CODES, code) || typeof message !== "string") return undefined;
  return { code: code as ErrorCode, message };
}
