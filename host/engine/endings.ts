/**
 * How an operation ends, said once for every shape of the real call: the error a stop or a
 * cancellation becomes, and the outcome an error means in the record.
 */
import { operationCancelled } from "../errors/call-errors.js";
import type { ErrorData } from "../errors/sluice-error.js";
import { withKeys } from "../objects/with-keys.js";
import type { Stop } from "../pipeline/run-steps.js";

/** A hook's stop that ends the operation: a reject or an ask at a before point, a block after it. */
export type EndingStop = Extract<Stop, { kind: "reject" | "block" | "ask" }>;

const STOPS = {
  reject: { code: "HOOK_REJECTED", verb: "rejected" },
  block: { code: "HOOK_BLOCKED", verb: "blocked" },
  ask: { code: "HOOK_ASKED", verb: "approval required" },
} as const;

/**
 * The error a hook's reject or block becomes. A stop of one chunk of a stream names the
 * chunk in `chunk` (index and channel) and says "stream blocked".
 */
export function stopError(stop: EndingStop, chunk?: { chunkIndex: number; channel: string }): ErrorData {
  const { code, verb } = STOPS[stop.kind];
  return {
    code,
    message: `${chunk ? "stream " : ""}${verb} by binding ${stop.bindingId}: ${stop.code ?? ""} ${stop.reason ?? ""}`.replace(/: {2,}/, ": ").trim(),
    details: { bindingId: stop.bindingId, ...(stop.code !== undefined ? { hookCode: stop.code } : {}), reason: stop.reason, ...chunk },
  };
}

export function isCancel(error: ErrorData): boolean {
  return error.code === "CALL_CANCELLED" || error.code === "DEADLINE_EXCEEDED";
}

/** The record's outcome of an operation that ended with `error`. */
export function outcomeOf(error: ErrorData): string {
  switch (error.code) {
    case "HOOK_REJECTED": return "rejected";
    case "HOOK_BLOCKED": return "blocked";
    case "HOOK_ASKED": return "asked";
    default: return isCancel(error) ? "cancelled" : "failed";
  }
}

export function cancelled(signal: AbortSignal): ErrorData {
  const deadline = signal.reason instanceof DOMException && signal.reason.name === "TimeoutError";
  return deadline
    ? { code: "DEADLINE_EXCEEDED", message: "the operation's deadline passed" }
    : operationCancelled();
}

/**
 * A stage ended by the operation's signal reports what ended it: a deadline is
 * DEADLINE_EXCEEDED in every phase (the executors only know "cancelled").
 */
export function cancellation(error: ErrorData, signal: AbortSignal): ErrorData {
  return error.code === "CALL_CANCELLED" && signal.aborted ? withKeys(cancelled(signal), error.details ? { details: error.details } : {}) : error;
}

/**
 * Settles as soon as the signal aborts, even if the operation ignores it. The work's own
 * ending is still observed: a work that rejects once the caller has gone (an upstream request
 * aborted with the client's disconnect) would otherwise be an unhandled rejection, which ends
 * the process.
 */
export function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The wrapped call's own failure, as the catalogue says it; the thrown value is kept as the cause (errorMode "original" hands it back). */
export function operationFailed(what: string, err: unknown): ErrorData {
  return { code: "OPERATION_FAILED", message: `${what}: ${(err as Error)?.message ?? String(err)}`, details: { cause: err } };
}
