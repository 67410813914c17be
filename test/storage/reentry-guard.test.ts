import { describe, expect, it } from "vitest";
import { ReentryGuard } from "../../host/storage/reentry-guard.js";

const tick = () => new Promise((r) => setImmediate(r));

describe("ReentryGuard: a store call from inside a transaction's body is told apart", () => {
  it("is inside across the body's awaits and outside before, after and beside it", async () => {
    const guard = new ReentryGuard();
    expect(guard.inside()).toBe(false);
    let beside: boolean | undefined;
    const body = guard.run(async () => {
      await tick();
      const early = guard.inside();
      await tick();
      return [early, guard.inside()];
    });
    // Code that started outside the body stays outside while the body runs.
    void (async () => { await tick(); beside = guard.inside(); })();
    expect(await body).toEqual([true, true]);
    expect(beside).toBe(false);
    expect(guard.inside()).toBe(false);
  });

  it("keeps a second, overlapping body inside when the first ends, and switches off only after the last", async () => {
    const guard = new ReentryGuard();
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    const second = guard.run(async () => { await held; await tick(); return guard.inside(); });
    await guard.run(async () => { await tick(); });
    release();
    expect(await second).toBe(true);
    expect(guard.inside()).toBe(false);
    // On again for the next body after being switched off.
    expect(await guard.run(async () => { await tick(); return guard.inside(); })).toBe(true);
  });

  it("ends a failing body's run with its error and leaves the guard outside", async () => {
    const guard = new ReentryGuard();
    await expect(guard.run(async () => { await tick(); throw new Error("body failed"); })).rejects.toThrow("body failed");
    expect(guard.inside()).toBe(false);
  });
});
