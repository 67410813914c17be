/**
 * Where a worker thread's time went. A guest's time limit is kept on the calling thread
 * (watch-clock.ts), and a worker runs at a lower priority than the host's threads
 * (`workerNice`): on a machine whose cores are all busy it can sit runnable for tens or
 * hundreds of milliseconds (measured: a stack overflow costing 3-6 ms of CPU took up to
 * 300 ms of wall time right after the host's first upload, whose background compilation
 * of the meter competed with it). That wait is not the guest's work; time the guest spends
 * blocked (a slow kv store) is. Linux counts both per thread in
 * /proc/<pid>/task/<tid>/schedstat: time on a core (current to a scheduler tick) and time
 * runnable but waiting for one (added only when each wait ends). Elsewhere there is
 * nothing to read and the clock stays wall time.
 */
import { readFileSync, readlinkSync } from "node:fs";

/** The calling thread's Linux thread id; 0 where there is none to read. */
export function ownThreadId(): number {
  try {
    const m = /task\/(\d+)$/.exec(readlinkSync("/proc/thread-self"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** Milliseconds since the thread started: on a core, and waiting for one (ended waits only); `runnable`: running or waiting for a core now. */
export interface ThreadTimes { cpu: number; wait: number; runnable: boolean }

/** Thread `tid` of this process now; undefined when unknown. */
export function threadTimes(tid: number): ThreadTimes | undefined {
  if (!(tid > 0)) return undefined;
  try {
    const [cpu, wait] = readFileSync(`/proc/self/task/${tid}/schedstat`, "latin1").split(" ").map(Number);
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, "latin1");
    // The state follows the command name, which is in parentheses and may hold spaces.
    const state = stat.charAt(stat.lastIndexOf(")") + 2);
    return Number.isFinite(cpu) && Number.isFinite(wait) ? { cpu: cpu! / 1e6, wait: wait! / 1e6, runnable: state === "R" } : undefined;
  } catch {
    return undefined;
  }
}
