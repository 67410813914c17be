/**
 * The per-call clock of a task, kept on the calling thread: the worker writes which call
 * it runs and when that call started into shared memory (protocol.ts), and this timer
 * calls `timedOut` once the running call passes its limit. Each call's clock starts when
 * the worker starts it, so waiting in a queue never counts against a guest, and the clock
 * pauses while the worker does host work between calls (start time NaN).
 *
 * Nor does the time the worker waits for a core (thread-cpu.ts, Linux): from the first
 * look at a running call on, the worker's waits for a core are taken off its wall time,
 * and a call past its limit whose worker is runnable but got under half the wall since the
 * last look (a wait still going on, not yet counted) is looked at again instead of ended.
 * In all a call ends by MAX_STRETCH times its limit of wall time, so a runaway still ends.
 * Time the guest spends blocked (a slow kv store) counts, as does all time before the
 * first look and everything where nothing can be read.
 */
import { PROGRESS_INDEX, PROGRESS_START, PROGRESS_THREAD } from "../protocol.js";
import { threadTimes, type ThreadTimes } from "../thread-cpu.js";

/** However long its worker waits for a core, a call ends by this many times its limit (wall time). */
export const MAX_STRETCH = 10;
/** When a running call is first looked at: early, and only a call still running then pays for the look (two small file reads). */
const FIRST_LOOK_MS = 5;
/** How soon a call past its limit whose worker is waiting for a core is looked at again. */
const STARVED_LOOK_MS = 5;

/** Starts watching; returns the function that stops it. */
export function watchClock(progress: SharedArrayBuffer, limits: readonly number[], timedOut: (call: number) => void): () => void {
  const index = new Int32Array(progress, 0, 2);
  const started = new Float64Array(progress, 8, 1);
  const idle = Math.max(1, Math.min(...limits));
  let timer: NodeJS.Timeout | undefined;
  // The call looked at (its index and start), its wall time and worker's times at the first look and at the last.
  let call = -1;
  let callStart = Number.NaN;
  let first: { wall: number; times: ThreadTimes } | undefined;
  let last: { wall: number; times: ThreadTimes } | undefined;
  const watch = (): void => {
    const i = Atomics.load(index, PROGRESS_INDEX);
    if (i >= limits.length) return;
    const start = started[PROGRESS_START - 1]!;
    // Not started yet (i < 0), or host work between calls (NaN): look again later.
    if (i < 0 || Number.isNaN(start)) { timer = setTimeout(watch, idle); return; }
    const times = threadTimes(Atomics.load(index, PROGRESS_THREAD));
    const wall = performance.timeOrigin + performance.now() - start;
    if (i !== call || start !== callStart) {
      call = i;
      callStart = start;
      first = times && { wall, times };
      last = first;
    }
    const limit = limits[i]!;
    const cap = limit * MAX_STRETCH;
    const used = first && times ? wall - Math.max(0, times.wait - first.times.wait) : wall;
    const starved = times !== undefined && last !== undefined && times.runnable && wall > last.wall && times.cpu - last.times.cpu < 0.5 * (wall - last.wall);
    if (times) last = { wall, times };
    if (wall >= cap || (used >= limit && !starved)) { timedOut(i); return; }
    timer = setTimeout(watch, used >= limit ? STARVED_LOOK_MS : Math.max(1, Math.ceil(Math.min(limit - used, cap - wall))));
  };
  timer = setTimeout(watch, Math.min(idle, FIRST_LOOK_MS));
  return () => clearTimeout(timer);
}
