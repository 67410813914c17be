/**
 * The messages of the errors a call ends with when it is cancelled or its sandbox closes,
 * one factory per message beside the catalogue (codes.ts), as Fastify's createError keeps
 * each template beside its code: call sites name the situation, never write the text.
 */
import type { ErrorData } from "./sluice-error.js";
import { SluiceError } from "./sluice-error.js";

/** A call made after the sandbox closed: thrown, as the call never started. */
export const sandboxClosed = (): SluiceError => new SluiceError("EXECUTOR_CLOSED", "the sandbox is closed");

/** A call the sandbox's closing ended, waiting or in flight. */
export const closedDuringCall = (): ErrorData => ({ code: "EXECUTOR_CLOSED", message: "the sandbox was closed" });

/** A call whose signal had fired before it was scheduled. */
export const cancelledBeforeStart = (): ErrorData => ({ code: "CALL_CANCELLED", message: "the call was cancelled before it started" });

/** A call cancelled while it waited in the queue for a worker. */
export const cancelledWhileQueued = (): ErrorData => ({ code: "CALL_CANCELLED", message: "the call was cancelled while it waited for a worker" });

/** A call cancelled while it ran; `reason` is the signal's. */
export const cancelledByCaller = (reason: unknown): ErrorData => ({ code: "CALL_CANCELLED", message: "the call was cancelled by the caller", details: { reason: String(reason ?? "aborted") } });

/** A call cancelled while one of its in-process (trusted) hooks ran. */
export const cancelledInProcessHook = (): ErrorData => ({ code: "CALL_CANCELLED", message: "the call was cancelled while an in-process hook ran" });

/** A whole operation (hooks and the real call) cancelled by its caller. */
export const operationCancelled = (): ErrorData => ({ code: "CALL_CANCELLED", message: "the operation was cancelled by the caller" });
