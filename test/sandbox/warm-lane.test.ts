/**
 * Sandbox.expectTask (Lane.warm): a caller that knows a task is coming wakes the sleeping
 * worker it will go to, which polls for the task instead of sleeping on, and sleeps again
 * when none comes. A task then finds its worker awake (a worker woken by the task itself
 * answered later and ran it more slowly: test/bench/RESULTS.md).
 */
import { afterEach, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../../host/sandbox/index.js";
import { Lane } from "../../host/sandbox/main/lane.js";
import { LANE_SLEEPING } from "../../host/sandbox/protocol.js";
import { fixture } from "../helpers/fixtures.js";
import { request } from "../helpers/requests.js";

let sandbox: Sandbox | undefined;
afterEach(async () => { await sandbox?.close(); sandbox = undefined; });

const laneOf = (s: Sandbox): Lane => [...(s as unknown as { lanes: Iterable<Lane> }).lanes][0]!;
const sleeping = (lane: Lane): boolean => Atomics.load((lane as unknown as { control: Int32Array }).control, LANE_SLEEPING) === 1;

/**
 * Busy-waits until `lane` is or is not asleep; false after `ms`. Synchronous, not the timer
 * polling of test/helpers/until.ts: a warmed worker is awake only for its poll, and a timer
 * late on a loaded machine could miss that window. (The worker is another thread.)
 */
function spinUntil(lane: Lane, asleep: boolean, ms: number): boolean {
  const end = performance.now() + ms;
  while (performance.now() < end) if (sleeping(lane) === asleep) return true;
  return false;
}

describe("warming a worker ahead of its task", () => {
  it("wakes the sleeping worker, which polls for the task, answers it, and sleeps again when no other comes", async () => {
    // A long poll after a warm (100 ms), so the task below surely comes within it; the caller never
    // polls; the workers are kept however long the test takes on a loaded machine.
    sandbox = createSandbox({ workers: 1, spareWorkers: 0, idleMs: 600_000, spin: { caller: 0, worker: 100_000 } });
    await sandbox.ready();
    const module = await sandbox.load(fixture("continue"));
    const lane = laneOf(sandbox);
    expect(spinUntil(lane, true, 5_000), "asleep before").toBe(true);

    sandbox.expectTask();
    expect(spinUntil(lane, false, 5_000), "awake after the warm").toBe(true);
    const seenAtPost: boolean[] = [];
    const post = Lane.prototype.post;
    Lane.prototype.post = function (this: Lane, task: unknown, spin: number) { seenAtPost.push(sleeping(this)); return post.call(this, task, spin); };
    try {
      expect(await sandbox.invoke(module, request())).toMatchObject({ ok: true, outcome: { kind: "continue" } });
    } finally {
      Lane.prototype.post = post;
    }
    expect(seenAtPost, "awake when the task was posted").toEqual([false]);
    // A caller that does not poll gets no polling worker after its task: it sleeps again.
    expect(spinUntil(lane, true, 5_000), "asleep after").toBe(true);
  });

  it("a warm that no task follows ends in sleep after the poll, and the next task is still answered", async () => {
    sandbox = createSandbox({ workers: 1, spareWorkers: 0, idleMs: 600_000, spin: { caller: 0, worker: 100_000 } });
    await sandbox.ready();
    const module = await sandbox.load(fixture("continue"));
    const lane = laneOf(sandbox);
    expect(spinUntil(lane, true, 5_000)).toBe(true);
    sandbox.expectTask();
    expect(spinUntil(lane, false, 5_000)).toBe(true);
    expect(spinUntil(lane, true, 5_000)).toBe(true);
    expect(await sandbox.invoke(module, request())).toMatchObject({ ok: true, outcome: { kind: "continue" } });
  });

  it("is a no-op on a closed sandbox", async () => {
    sandbox = createSandbox({ workers: 1, spareWorkers: 0 });
    await sandbox.ready();
    await sandbox.close();
    expect(() => sandbox!.expectTask()).not.toThrow();
  });
});
