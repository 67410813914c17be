/**
 * The per-call clock of a task, kept on the calling thread: the worker writes which call
 * it runs and when that call started into shared memory (protocol.ts), and this timer
 * calls `timedOut` once the running call passes its limit. Each call's clock starts when
 * the worker starts it, so waiting in a queue never counts against a guest, and the clock
 * pauses while the worker does host work between calls (start time NaN).
 */
import { PROGRESS_INDEX, PROGRESS_START } from "../protocol.js";

/** Starts watching; returns the function that stops it. */
export function watchClock(progress: SharedArrayBuffer, limits: readonly number[], timedOut: (call: number) => void): () => void {
  const index = new Int32Array(progress, 0, 2);
  const started = new Float64Array(progress, 8, 1);
  const idle = Math.max(1, Math.min(...limits));
  let timer: NodeJS.Timeout | undefined;
  const watch = (): void => {
    const i = Atomics.load(index, PROGRESS_INDEX);
    if (i >= limits.length) return;
    // Not started yet (i < 0), or host work between calls (NaN): look again later.
    if (i < 0 || Number.isNaN(started[PROGRESS_START - 1]!)) { timer = setTimeout(watch, idle); return; }
    const deadline = started[PROGRESS_START - 1]! + limits[i]!;
    const now = performance.timeOrigin + performance.now();
    if (now >= deadline) { timedOut(i); return; }
    timer = setTimeout(watch, Math.max(1, Math.ceil(deadline - now)));
  };
  timer = setTimeout(watch, idle);
  return () => clearTimeout(timer);
}
