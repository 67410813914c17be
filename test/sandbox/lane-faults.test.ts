/**
 * Lanes under faults: replies that must survive their worker's death, cancellations that
 * must not kill another operation's work, and a close() in the middle of a batch.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { encode } from "../../abi/codec.js";
import type { StageInput } from "../../host/pipeline/run-steps.js";
import { createSandbox, type Sandbox } from "../../host/sandbox/index.js";
import { fixture, BACKSTOP_FUEL } from "../helpers/fixtures.js";
import { context, request } from "../helpers/requests.js";
import { handedOver, watchTasks } from "../helpers/lanes.js";
import { until } from "../helpers/until.js";

let sandbox: Sandbox | undefined;
afterEach(async () => { vi.restoreAllMocks(); await sandbox?.close(); sandbox = undefined; });

const busyFor = (ms: number): void => { const t = performance.now(); while (performance.now() - t < ms); };
const stage = (): StageInput => ({
  point: "tool.before",
  context: context("tool.before"),
  payload: { tool_id: "t", name: "t", schema: { type: "object" }, arguments: {}, call_id: "c" },
  steps: [{ bindingId: "b", hookRef: "h@1.0.0", policy: "fail-closed", observeOnly: false, config: {} }],
});

/** A call that finishes after a few milliseconds of guest work. */
const spinRequest = (iterations: number): Uint8Array => encode(request("tool.before", {}, { mode: "spin", iterations }));
/** Blocks this thread from the next turn of the event loop on, after queued tasks were posted. */
const blockNextTurn = (ms: number): Promise<void> => new Promise((resolve) => setImmediate(() => { busyFor(ms); resolve(); }));

describe("a lane's worker dies", () => {
  it("a call that finished before it keeps its result, though the reply was not yet read", async () => {
    sandbox = createSandbox({ workers: 1, spareWorkers: 0, spin: { caller: 0 } });
    const loop = await sandbox.load(fixture("loop"), { limits: { fuel: BACKSTOP_FUEL } });
    const slow = await sandbox.load(fixture("contract-hook"), { limits: { timeoutMs: 2_000, fuel: BACKSTOP_FUEL } });
    await sandbox.ready();
    const finished = sandbox.invokeBytes(slow, spinRequest(2_000_000));
    const runaway = sandbox.invokeBytes(loop, encode(request()), { timeoutMs: 50 });
    // Busy past the runaway's limit: its timeout is handled before the first reply is read.
    await blockNextTurn(400);
    expect(await finished).toMatchObject({ ok: true, outcome: { kind: "continue" } });
    expect(await runaway).toMatchObject({ ok: false, error: { code: "GUEST_TIMEOUT" } });
  });
});

describe("cancellation on a lane", () => {
  it("cancelling a call that already finished neither kills its worker nor fails the call behind it", async () => {
    sandbox = createSandbox({ workers: 1, spareWorkers: 0, spin: { caller: 0 } });
    const loop = await sandbox.load(fixture("loop"), { limits: { timeoutMs: 1_000, fuel: BACKSTOP_FUEL } });
    const slow = await sandbox.load(fixture("contract-hook"), { limits: { timeoutMs: 2_000, fuel: BACKSTOP_FUEL } });
    await sandbox.ready();
    const controller = new AbortController();
    const finished = sandbox.invokeBytes(slow, spinRequest(2_000_000), { signal: controller.signal });
    const behind = sandbox.invokeBytes(loop, encode(request()), { timeoutMs: 300 });
    await blockNextTurn(150);
    controller.abort();
    expect((await finished).ok).toBe(true);
    // The call behind ran its own course: it timed out on its own limit, not WORKER_CRASHED.
    expect(await behind).toMatchObject({ ok: false, error: { code: "GUEST_TIMEOUT", details: { limitMs: 300 } } });
  });

  it("cancelling one stage of a batch answers it at once and leaves the others' work alone", async () => {
    sandbox = createSandbox({ workers: 1, spareWorkers: 0, restarts: { burst: 2, perSecond: 0.001 } });
    const loop = await sandbox.load(fixture("loop"), { limits: { timeoutMs: 600, fuel: BACKSTOP_FUEL } });
    const ok = await sandbox.load(fixture("continue"));
    await sandbox.ready();
    const controller = new AbortController();
    const first = sandbox.runStage(stage(), [{ module: ok, timeoutMs: 5_000 }]);
    const slow = sandbox.runStage(stage(), [{ module: loop, timeoutMs: 5_000 }]);
    const cancelled = sandbox.runStage(stage(), [{ module: ok, timeoutMs: 5_000 }], controller.signal);
    await first;
    controller.abort();
    const order = await Promise.race([cancelled.then(() => "cancelled"), slow.then(() => "slow")]);
    expect(order).toBe("cancelled");
    expect(await cancelled).toMatchObject({ ok: false, index: 0, error: { code: "CALL_CANCELLED" } });
    // The looping stage was not cut short by someone else's cancellation: it reached its own limit.
    expect(await slow).toMatchObject({ ok: false, error: { code: "GUEST_TIMEOUT", details: { limitMs: 600 } } });
    expect((await first).ok).toBe(true);
    // One worker restart, for the loop's own timeout: the cancellation cost none, and the
    // looping stage ran once (a second run would have spent the budget of 2).
    expect(sandbox.restartLimited(loop)).toBe(false);
  });
});

describe("a caller that goes away while its guest runs", () => {
  // A client that disconnects mid-hook cancels its stage. Terminating the worker there cost a
  // restart each time, charged to the plugin: any client could spend a plugin's restart
  // budget and have its calls refused for every tenant (WORKER_RESTART_LIMITED).
  it("is answered CALL_CANCELLED at once; the worker is not terminated and the plugin's restart budget is untouched", async () => {
    const ended: unknown[] = [];
    sandbox = createSandbox({ workers: 1, spareWorkers: 0, spin: { caller: 0 }, restarts: { burst: 2, perSecond: 0.001 }, onWorkerEnded: (e) => ended.push(e) });
    const slow = await sandbox.load(fixture("contract-hook"), { limits: { timeoutMs: 5_000, fuel: BACKSTOP_FUEL } });
    await sandbox.ready();
    const tasks = watchTasks();
    for (let i = 0; i < 3; i++) {
      // Served after the call abandoned before it has run its course: the worker is free again.
      expect(await sandbox.invokeBytes(slow, spinRequest(10))).toMatchObject({ ok: true });
      const controller = new AbortController();
      // About a quarter of a second of guest work.
      const started = tasks.guestsStarted();
      const running = sandbox.invokeBytes(slow, spinRequest(200_000_000), { signal: controller.signal });
      await until(() => tasks.guestsStarted() > started);
      const t0 = performance.now();
      controller.abort(new Error("the client went away"));
      expect(await running).toMatchObject({ ok: false, error: { code: "CALL_CANCELLED" } });
      expect(performance.now() - t0).toBeLessThan(50);
    }
    // The same worker serves the next call, once the abandoned ones have run their course.
    expect(await sandbox.invokeBytes(slow, spinRequest(10))).toMatchObject({ ok: true, outcome: { kind: "continue" } });
    expect(ended).toEqual([]);
    expect(sandbox.restartLimited(slow)).toBe(false);
  });

  it("leaves a runaway it abandoned to its own time limit, which still stops it and costs its worker", async () => {
    const ended: unknown[] = [];
    sandbox = createSandbox({ workers: 1, spareWorkers: 0, spin: { caller: 0 }, restarts: { burst: 1, perSecond: 0.001 }, onWorkerEnded: (e) => ended.push(e) });
    const loop = await sandbox.load(fixture("loop"), { limits: { timeoutMs: 300, fuel: BACKSTOP_FUEL } });
    await sandbox.ready();
    const tasks = watchTasks();
    const controller = new AbortController();
    const running = sandbox.invokeBytes(loop, encode(request()), { signal: controller.signal });
    await until(() => tasks.guestsStarted() > 0);
    controller.abort();
    expect(await running).toMatchObject({ ok: false, error: { code: "CALL_CANCELLED" } });
    // Its clock runs on: at 300 ms the worker is terminated for the timeout, charged to the loop.
    expect(ended).toEqual([]);
    await until(() => ended.length > 0);
    expect(ended).toHaveLength(1);
    expect(sandbox.restartLimited(loop)).toBe(true);
  });
});

describe("close()", () => {
  it("answers every stage of a batch in flight with EXECUTOR_CLOSED and nothing is left hanging", async () => {
    sandbox = createSandbox({ workers: 1, spareWorkers: 0 });
    const loop = await sandbox.load(fixture("loop"), { limits: { timeoutMs: 1_000, fuel: BACKSTOP_FUEL } });
    const ok = await sandbox.load(fixture("continue"));
    await sandbox.ready();
    const stages = [
      sandbox.runStage(stage(), [{ module: loop, timeoutMs: 1_000 }]),
      sandbox.runStage(stage(), [{ module: ok, timeoutMs: 1_000 }]),
      sandbox.runStage(stage(), [{ module: ok, timeoutMs: 1_000 }]),
    ];
    await until(() => handedOver(sandbox!));
    await sandbox.close();
    const results = await Promise.all(stages);
    expect(results.map((r) => !r.ok && r.error.code)).toEqual(["EXECUTOR_CLOSED", "EXECUTOR_CLOSED", "EXECUTOR_CLOSED"]);
  });
});
