/**
 * The messages of the errors a sandbox call ends with when the worker pool, not the guest's
 * own code, decides it: a time limit, a dead or missing worker, a full queue, a spent restart
 * budget, a task cut short. One factory per situation beside the catalogue (codes.ts), as
 * call-errors.ts does for cancelled and closed calls.
 */
import type { ErrorData } from "./sluice-error.js";

/** Workers keep dying before they serve (`cause`: the last one's error, when known). */
export const workersFailToStart = (cause?: string): ErrorData => ({ code: "WORKER_CRASHED", message: cause === undefined ? "worker threads fail to start" : `worker threads fail to start: ${cause}` });

/** The worker running call `call` of a task died (`cause`: what ended it). */
export const workerDied = (call: number, cause: string): ErrorData => ({ code: "WORKER_CRASHED", message: `the worker running the call died: ${cause}`, details: { call } });

/** Guest call `call` ran past its limit and its worker was terminated. */
export const guestTimedOut = (call: number, limitMs: number | undefined): ErrorData => ({ code: "GUEST_TIMEOUT", message: `guest call ${call} ran past its ${limitMs} ms limit; its worker was terminated`, details: { call, limitMs } });

/** Refused: `maxQueue` tasks already wait for a worker. */
export const queueFull = (maxQueue: number): ErrorData => ({ code: "QUEUE_FULL", message: `the sandbox queue is full (${maxQueue} waiting tasks); retry later` });

/** Refused: module `moduleId` caused too many worker restarts recently. */
export const restartLimited = (moduleId: string): ErrorData => ({ code: "WORKER_RESTART_LIMITED", message: "this plugin caused too many worker restarts recently; its calls are refused until the restart budget refills", details: { moduleId } });

/** A call of a task that another call's failure (`cause`) ended before this one completed. */
export const notCompleted = (cause: ErrorData): ErrorData => ({ code: cause.code, message: `not completed: a later call in the same task failed (${cause.code})`, details: { causedBy: cause.code } });
