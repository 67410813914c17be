import { afterAll, describe, expect, it } from "vitest";
import { RestartBudget } from "../../host/sandbox/main/restart-budget.js";
import { createSandbox } from "../../host/sandbox/index.js";
import { fixture, BACKSTOP_FUEL } from "../helpers/fixtures.js";
import { request } from "../helpers/requests.js";

describe("the worker restart budget", () => {
  it("allows a burst, then refuses only the modules that caused restarts, and refills over time", () => {
    let now = 0;
    const budget = new RestartBudget({ burst: 2, perSecond: 1, offenderMs: 10_000 }, () => now);
    budget.spend("loop");
    expect(budget.refused(["loop", "ok"])).toBeUndefined();
    budget.spend("loop");
    expect(budget.refused(["ok"])).toBeUndefined();
    expect(budget.refused(["ok", "loop"])).toBe("loop");
    now += 1_000;
    expect(budget.refused(["loop"])).toBeUndefined();
  });

  const sandbox = createSandbox({ workers: 2, restarts: { burst: 1, perSecond: 0.001 } });
  afterAll(() => sandbox.close());

  it("a guest that keeps timing out is refused with WORKER_RESTART_LIMITED while other plugins keep running", async () => {
    const loop = await sandbox.load(fixture("loop"), { limits: { timeoutMs: 20, fuel: BACKSTOP_FUEL } });
    const ok = await sandbox.load(fixture("continue"));
    expect((await sandbox.invoke(loop, request())).ok).toBe(false);
    // Answered without waiting: before the event loop turns at all.
    let turned = false;
    setImmediate(() => { turned = true; });
    const refused = await sandbox.invoke(loop, request());
    expect(!refused.ok && refused.error.code).toBe("WORKER_RESTART_LIMITED");
    expect(turned).toBe(false);
    expect(sandbox.restartLimited(loop)).toBe(true);
    expect((await sandbox.invoke(ok, request())).ok).toBe(true);
  });
});
