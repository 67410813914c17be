/**
 * What a sandbox's lanes are doing, for tests that must act at a given moment of a call's
 * life (cancel it while its guest runs, close while a batch is in flight) and wait for that
 * moment with `until` instead of guessing how long it takes.
 */
import { vi } from "vitest";
import type { Sandbox } from "../../host/sandbox/index.js";
import { Lane } from "../../host/sandbox/main/lane.js";
import { PROGRESS_INDEX } from "../../host/sandbox/protocol.js";

const lanesOf = (sandbox: Sandbox): Set<Lane> => (sandbox as unknown as { lanes: Set<Lane> }).lanes;

/** Calls the workers hold now (the one each runs and the one it takes next), not those waiting in the caller's queue. */
export const callsHeld = (sandbox: Sandbox): number => [...lanesOf(sandbox)].reduce((sum, l) => sum + l.inFlight, 0);

/** True once some worker holds a call: what was sent is past the caller's queue, though its guest may not have started. */
export const handedOver = (sandbox: Sandbox): boolean => callsHeld(sandbox) > 0;

/** True while the sandbox rests: every worker it held was let go after `idleMs`. */
export const resting = (sandbox: Sandbox): boolean => [...lanesOf(sandbox)].every((l) => l.dead);

/**
 * Watches every task posted to a lane from now on, through its progress word (protocol.ts):
 * `guestsStarted()` counts those whose first guest call has begun. A call cancelled before
 * that is skipped by its worker, never run, so a test about cancelling a running guest waits
 * for this. The watch ends with `vi.restoreAllMocks()`.
 */
export function watchTasks(): { guestsStarted: () => number } {
  const words: Int32Array[] = [];
  const post = Lane.prototype.post;
  vi.spyOn(Lane.prototype, "post").mockImplementation(function (this: Lane, task: unknown, spinMicros: number) {
    const progress = (task as { progress?: SharedArrayBuffer }).progress;
    if (progress) words.push(new Int32Array(progress, 0, 2));
    return post.call(this, task, spinMicros);
  });
  return { guestsStarted: () => words.filter((w) => Atomics.load(w, PROGRESS_INDEX) >= 0).length };
}

/** The Piscina thread of a lane running a task now: private by design, reached here only to kill it. */
export type PoolInternals = { lanes: Iterable<{ inFlight: number; threadId: number }> & { pool: { threads: { threadId: number; terminate(): Promise<number> }[] } } };
export const busyThread = (sandbox: Sandbox): { terminate(): Promise<number> } => {
  const { lanes } = sandbox as unknown as PoolInternals;
  const lane = [...lanes].find((l) => l.inFlight > 0);
  const thread = lanes.pool.threads.find((t) => t.threadId === lane?.threadId);
  if (!thread) throw new Error("no worker is running a task");
  return thread;
};
