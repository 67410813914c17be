/**
 * The per-call clock of a task, kept on the calling thread: the worker writes which call
 * it runs and when that call started into shared memory (protocol.ts), and this timer
 * calls `timedOut` once the running call passes its limit. Each call's clock starts when
 * the worker starts it, so waiting in a queue never counts against a guest, and the clock
 * pauses while the worker does host work between calls (start time NaN).
 *
 * Nor does the time the worker waits for a core (thread-cpu.ts, Linux): from the first
 * look at a running call on, the clock advances with the CPU its worker gets, not with the
 * wall, and in all a call ends by MAX_STRETCH times its limit of wall time. A guest on a
 * saturated machine is stopped by its own work, not by its neighbours', and a runaway
 * still ends. Before the first look (or where no CPU time can be read) it is wall time.
 */
import { PROGRESS_INDEX, PROGRESS_START, PROGRESS_THREAD } from "./protocol.js";
import { threadCpuMs } from "./thread-cpu.js";

/** However long its worker waits for a core, a call ends by this many times its limit (wall time). */
export const MAX_STRETCH = 10;
/** When a running call is first looked at: early, and only a call still running then pays for the look (one small file read). */
const FIRST_LOOK_MS = 5;

/** Starts watching; returns the function that stops it. */
export function watchClock(progress: SharedArrayBuffer, limits: readonly number[], timedOut: (call: number) => void): () => void {
  const index = new Int32Array(progress, 0, 2);
  const started = new Float64Array(progress, 8, 1);
  const idle = Math.max(1, Math.min(...limits));
  let timer: NodeJS.Timeout | undefined;
  // The call last looked at (its index and start), the wall time it had run and its worker's CPU time at that first look.
  let call = -1;
  let callStart = Number.NaN;
  let ranAtLook = 0;
  let cpuAtLook: number | undefined;
  const watch = (): void => {
    const i = Atomics.load(index, PROGRESS_INDEX);
    if (i >= limits.length) return;
    const start = started[PROGRESS_START - 1]!;
    // Not started yet (i < 0), or host work between calls (NaN): look again later.
    if (i < 0 || Number.isNaN(start)) { timer = setTimeout(watch, idle); return; }
    const thread = Atomics.load(index, PROGRESS_THREAD);
    const now = performance.timeOrigin + performance.now();
    const wall = now - start;
    if (i !== call || start !== callStart) {
      call = i;
      callStart = start;
      ranAtLook = wall;
      cpuAtLook = threadCpuMs(thread);
    }
    const cpu = cpuAtLook === undefined ? undefined : threadCpuMs(thread);
    // The guest's time: all of it until the first look, then only what its worker had on a core.
    const used = cpu === undefined ? wall : ranAtLook + Math.max(0, cpu - cpuAtLook!);
    const limit = limits[i]!;
    if (used >= limit || wall >= limit * MAX_STRETCH) { timedOut(i); return; }
    // CPU time never runs faster than the wall: the earliest the limit can be reached.
    timer = setTimeout(watch, Math.max(1, Math.ceil(Math.min(limit - used, limit * MAX_STRETCH - wall))));
  };
  timer = setTimeout(watch, Math.min(idle, FIRST_LOOK_MS));
  return () => clearTimeout(timer);
}
