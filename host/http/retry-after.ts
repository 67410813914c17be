/**
 * When a client refused for being busy may come back. A request over one of the server's
 * caps (connections, the executor's queue) or one that met a passing fault (a worker that
 * died, a sandbox on its way down) is answered 503 with `retry-after`, which the OpenAI
 * and AI SDK clients wait for before they retry. An
 * upstream's own `retry-after` (429 and 503 from the model's API) is passed on as it said.
 */
import type { ErrorCode } from "../errors/codes.js";

/** Seconds a client refused for being busy is told to wait. */
export const BUSY_RETRY_AFTER_SECONDS = 1;

/**
 * Busy now, worth a retry in a moment. Not STORE_UNAVAILABLE: a locked database passes, but
 * a missing file or a full disk does not, and the answer cannot tell which.
 */
const BUSY: ReadonlySet<ErrorCode> = new Set<ErrorCode>(["CONNECTIONS_FULL", "QUEUE_FULL", "WORKER_CRASHED", "EXECUTOR_CLOSED"]);

/** An upstream's wait longer than this is not passed on: past an hour it is a broken header, not advice. */
const MAX_RETRY_AFTER_SECONDS = 3600;

/** The `retry-after` value (seconds) for an answer with `code`, if it has one. */
export function busyRetryAfter(code: ErrorCode): string | undefined {
  return BUSY.has(code) ? String(BUSY_RETRY_AFTER_SECONDS) : undefined;
}

/**
 * An upstream's `retry-after` (seconds or an HTTP date) and `retry-after-ms` (OpenAI's), as
 * whole seconds and milliseconds to pass on; what does not parse, or is negative or past an
 * hour, is dropped.
 */
export function upstreamRetryAfter(headers: { "retry-after"?: string; "retry-after-ms"?: string }, now = Date.now()): { seconds?: number; ms?: number } {
  const out: { seconds?: number; ms?: number } = {};
  const raw = headers["retry-after"]?.trim();
  if (raw) {
    const seconds = /^\d+$/.test(raw) ? Number(raw) : Math.ceil((Date.parse(raw) - now) / 1000);
    if (Number.isFinite(seconds) && seconds >= 0 && seconds <= MAX_RETRY_AFTER_SECONDS) out.seconds = seconds;
  }
  const ms = headers["retry-after-ms"]?.trim();
  if (ms && /^\d+(\.\d+)?$/.test(ms) && Number(ms) <= MAX_RETRY_AFTER_SECONDS * 1000) out.ms = Math.ceil(Number(ms));
  return out;
}
