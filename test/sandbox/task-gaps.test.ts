/**
 * A worker polls for its next task only while tasks have been coming within the poll's
 * length (host/sandbox/worker/serve.ts): back to back, it keeps polling; a network round
 * trip apart (a server's before and after hooks), it sleeps at once instead of burning a core.
 */
import { describe, expect, it } from "vitest";
import { TaskGaps } from "../../host/sandbox/worker/serve.js";

function clocked(pollMicros: number) {
  let ms = 0;
  const gaps = new TaskGaps(pollMicros, () => ms);
  /** One task answered, and the next arriving `gapMicros` later. */
  const cycle = (gapMicros: number): void => { gaps.answered(); ms += gapMicros / 1000; gaps.arrived(); };
  return { gaps, cycle };
}

describe("TaskGaps: whether a worker polls for its next task", () => {
  it("polls before it has seen any gap, and while tasks come back to back", () => {
    const { gaps, cycle } = clocked(500);
    expect(gaps.nextIsNear()).toBe(true);
    for (let i = 0; i < 20; i++) cycle(40);
    expect(gaps.nextIsNear()).toBe(true);
  });

  it("stops polling once tasks come a millisecond apart, and polls again after a few quick ones", () => {
    const { gaps, cycle } = clocked(500);
    cycle(1_200);
    cycle(1_200);
    expect(gaps.nextIsNear()).toBe(false);
    // An idle minute counts no more than any gap past four polls.
    cycle(60_000_000);
    let quick = 0;
    while (!gaps.nextIsNear()) { cycle(30); quick++; }
    expect(quick).toBeGreaterThan(0);
    expect(quick).toBeLessThanOrEqual(5);
  });

  it("keeps polling through one slow gap among quick ones", () => {
    const { gaps, cycle } = clocked(500);
    for (let i = 0; i < 10; i++) cycle(30);
    cycle(800);
    expect(gaps.nextIsNear()).toBe(true);
  });
});
