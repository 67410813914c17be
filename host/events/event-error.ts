/**
 * How an error appears in an event. Error text is where plain data leaks: a service's
 * `Error("not found: " + query)`, a hook's reject reason, a guest's abort message. So by
 * default an event carries the stable code, the catalogue's summary of it as the message,
 * and only the host-made identifiers of its details; the error's own text (bounded) only
 * when the observer includes payloads.
 */
import { ERROR_CODES } from "../errors/codes.js";
import type { ErrorData } from "../errors/sluice-error.js";
import { errorTypeOf, type ErrorType } from "./error-type.js";
import { jsonSafe } from "./json-safe.js";

/** Longest message an event carries, payloads or not. */
export const EVENT_MESSAGE_MAX = 2_000;
const IDENTIFIER_MAX = 200;

/**
 * Detail keys whose values the host itself makes (ids, refs, codes, points, limits), so
 * they carry no caller or service text. Everything else (reason, message, guestMessage,
 * errors, problem, ...) needs payloads.
 */
const IDENTIFIER_KEYS = new Set([
  "bindingId", "binding", "hookRef", "hookCode", "point", "phase", "field", "tool", "ref", "code", "name", "status", "outcome", "operationId",
  "limitBytes", "usedBytes", "limitMs", "limit", "export", "import", "trap", "observeOnly", "expected", "actual", "type", "schema",
]);

export interface EventErrorFields {
  error_code: string;
  error_type: ErrorType;
  message: string;
  details: Record<string, unknown>;
}

/** The error fields of agent.error / tool.invocation.failed. */
export function eventError(error: ErrorData, payloads: boolean): EventErrorFields {
  return {
    error_code: error.code,
    error_type: errorTypeOf(error.code),
    message: eventMessage(error, payloads),
    details: payloads ? ((jsonSafe(error.details ?? {}) ?? {}) as Record<string, unknown>) : identifiersOf(error.details ?? {}),
  };
}

/** The message an event carries for an error: its summary by default, its own text (bounded) with payloads. */
export function eventMessage(error: { code: string; message: string }, payloads: boolean): string {
  if (payloads) return bounded(String(error.message), EVENT_MESSAGE_MAX);
  return (ERROR_CODES as Record<string, { summary: string } | undefined>)[error.code]?.summary ?? `error ${bounded(error.code, IDENTIFIER_MAX)}`;
}

function identifiersOf(value: unknown, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (typeof value !== "object" || value === null || depth > 4) return out;
  for (const [key, v] of Object.entries(value)) {
    if (key === "cause") {
      // An Error or an ErrorData: its code and name say what failed; its message is text.
      if (typeof v === "object" && v !== null) out.cause = identifiersOf(v instanceof Error ? { name: v.name, ...("code" in v ? { code: v.code } : {}) } : v, depth + 1);
      continue;
    }
    if (!IDENTIFIER_KEYS.has(key)) continue;
    if (typeof v === "string") out[key] = bounded(v, IDENTIFIER_MAX);
    else if (typeof v === "boolean" || v === null || (typeof v === "number" && Number.isFinite(v))) out[key] = v;
  }
  return out;
}

function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
