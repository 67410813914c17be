/**
 * How much CPU a worker thread has had. A guest's time limit is kept on the calling thread
 * (watch-clock.ts), and a worker runs at a lower priority than the host's threads
 * (`workerNice`): on a machine whose cores are all busy it can sit runnable for tens or
 * hundreds of milliseconds (measured: a stack overflow costing 3-6 ms of CPU took up to
 * 300 ms of wall time right after the host's first upload, whose background compilation
 * of the meter competed with it). That wait is not the guest's work. Linux counts each
 * thread's time on a core (the first field of /proc/<pid>/task/<tid>/schedstat, current to
 * a scheduler tick; the run-queue wait beside it is counted only once the wait ends, too
 * late for a deadline); elsewhere there is nothing to read and the clock stays wall time.
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

/** Milliseconds thread `tid` of this process has spent on a core since it started; undefined when unknown. */
export function threadCpuMs(tid: number): number | undefined {
  if (!(tid > 0)) return undefined;
  try {
    const ns = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, "latin1").split(" ")[0]);
    return Number.isFinite(ns) ? ns / 1e6 : undefined;
  } catch {
    return undefined;
  }
}
