import { setMaxListeners } from "node:events";

const MAX_TIMER_MS = 2 ** 31 - 1;

/** A signal that never aborts, shared by every operation that has neither a caller signal nor a deadline. */
const NEVER = new AbortController().signal;
// Every operation in flight listens to it (and removes its listener when done): not a leak.
setMaxListeners(0, NEVER);

/** True for the shared signal of operations with no caller signal and no deadline: nothing needs to listen to it. */
export function neverAborts(signal: AbortSignal): boolean {
  return signal === NEVER;
}

/**
 * The signal of one operation: the caller's signal and the deadline, combined by hand and
 * released by `release()`. (On Node 20, AbortSignal.any and AbortSignal.timeout keep their
 * signals and timers alive well after the operation; the stress run measured the leak.)
 */
export function operationSignal(callerSignal: AbortSignal | undefined, deadline: number | undefined): { signal: AbortSignal; release: () => void } {
  // Past a timer's reach (2^31-1 ms, about 24.8 days) Node would fire it after 1 ms: such a deadline never comes within the process's life.
  if (deadline === undefined || deadline - Date.now() > MAX_TIMER_MS) return { signal: callerSignal ?? NEVER, release: () => {} };
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(callerSignal?.reason);
  const timer = setTimeout(() => controller.abort(new DOMException("the operation's deadline passed", "TimeoutError")), Math.max(0, deadline - Date.now()));
  timer.unref?.();
  if (callerSignal?.aborted) controller.abort(callerSignal.reason);
  else callerSignal?.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    release: () => { clearTimeout(timer); callerSignal?.removeEventListener("abort", onAbort); },
  };
}
