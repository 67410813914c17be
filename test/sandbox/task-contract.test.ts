/**
 * The contract of a scheduled task, through a real sandbox and its workers: whatever ends
 * it (an abort before or during its run, its worker's death), the caller is answered once,
 * the scheduler's slot is given back, and no abort listener outlives the task.
 */
import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it, vi } from "vitest";
import { encode } from "../../abi/codec.js";
import type { StageInput } from "../../host/pipeline/run-steps.js";
import { createSandbox, type Sandbox } from "../../host/sandbox/index.js";
import { ScheduledTask } from "../../host/sandbox/main/scheduled-task.js";
import { fixture, BACKSTOP_FUEL } from "../helpers/fixtures.js";
import { busyThread, callsHeld, watchTasks } from "../helpers/lanes.js";
import { context, request } from "../helpers/requests.js";
import { until } from "../helpers/until.js";

let sandbox: Sandbox | undefined;
afterEach(async () => { vi.restoreAllMocks(); await sandbox?.close(); sandbox = undefined; });

/**
 * How often each task was answered (accepted) and how often a later answer was refused
 * (ignored), by the task's signal; `workerTasks` lists the kinds of worker task run.
 */
function watchAnswers(): ((signal: AbortSignal) => { accepted: number; ignored: number; tasks: number }) & { workerTasks: () => string[] } {
  const seen = new Map<ScheduledTask, { accepted: number; ignored: number }>();
  const settle = ScheduledTask.prototype.settle;
  vi.spyOn(ScheduledTask.prototype, "settle").mockImplementation(function (this: ScheduledTask, outcome) {
    const took = settle.call(this, outcome);
    const counts = seen.get(this) ?? { accepted: 0, ignored: 0 };
    if (took) counts.accepted++;
    else counts.ignored++;
    seen.set(this, counts);
    return took;
  });
  const bySignal = (signal: AbortSignal): { accepted: number; ignored: number; tasks: number } => {
    const mine = [...seen].filter(([t]) => t.signal === signal).map(([, c]) => c);
    return { accepted: mine.reduce((n, c) => n + c.accepted, 0), ignored: mine.reduce((n, c) => n + c.ignored, 0), tasks: mine.length };
  };
  return Object.assign(bySignal, { workerTasks: () => [...seen.keys()].flatMap((t) => (t.work.kind === "task" ? [t.work.task.kind] : [])) });
}

const listeners = (signal: AbortSignal): number => getEventListeners(signal, "abort").length;
/** The scheduler's own counts (private, read here to see the slot given back): tasks running, and whether the sandbox may rest. */
const scheduler = (s: Sandbox): { running: number; busy: boolean } => (s as unknown as { scheduler: { running: number; busy: boolean } }).scheduler;
/** A call that finishes after some guest work (the contract-hook fixture's spin mode). */
const spinRequest = (iterations: number): Uint8Array => encode(request("tool.before", {}, { mode: "spin", iterations }));
const stage = (): StageInput => ({
  point: "tool.before",
  context: context("tool.before"),
  payload: { tool_id: "t", name: "t", schema: { type: "object" }, arguments: {}, call_id: "c" },
  steps: [{ bindingId: "b", hookRef: "h@1.0.0", policy: "fail-closed", observeOnly: false, config: {} }],
});


describe("a task cancelled before it starts", () => {
  it("with a signal already aborted: never reaches a worker, answered CALL_CANCELLED once, no listener added", async () => {
    sandbox = createSandbox({ workers: 1, spareWorkers: 0 });
    const ok = await sandbox.load(fixture("continue"));
    await sandbox.ready();
    const answers = watchAnswers();
    const tasks = watchTasks();
    const signal = AbortSignal.abort();
    expect(await sandbox.invoke(ok, request(), { signal })).toMatchObject({ ok: false, error: { code: "CALL_CANCELLED" } });
    expect(await sandbox.runStage(stage(), [{ module: ok, timeoutMs: 1_000 }], signal)).toMatchObject({ ok: false, error: { code: "CALL_CANCELLED" } });
    expect(tasks.guestsStarted()).toBe(0);
    expect(callsHeld(sandbox)).toBe(0);
    expect(answers(signal)).toEqual({ accepted: 2, ignored: 0, tasks: 2 });
    expect(listeners(signal)).toBe(0);
  });

  it("while it waits in the queue or on a worker behind another call: its guest never starts, answered CALL_CANCELLED once", async () => {
    sandbox = createSandbox({ workers: 1, spareWorkers: 0, spin: { caller: 0 } });
    const loop = await sandbox.load(fixture("loop"), { limits: { timeoutMs: 400, fuel: BACKSTOP_FUEL } });
    const ok = await sandbox.load(fixture("continue"));
    await sandbox.ready();
    const answers = watchAnswers();
    const tasks = watchTasks();
    const looping = sandbox.invoke(loop, request());
    await until(() => tasks.guestsStarted() === 1);
    const inQueue = new AbortController();
    const queued = sandbox.invoke(ok, request(), { signal: inQueue.signal });
    // Still in the scheduler's queue: it goes to the worker at the end of this turn at the soonest.
    inQueue.abort();
    const onWorker = new AbortController();
    const behind = sandbox.invoke(ok, request(), { signal: onWorker.signal });
    // Handed to the busy worker, queued there behind the loop.
    expect(await until(() => callsHeld(sandbox!) === 2)).toBe(true);
    onWorker.abort();
    expect(await queued).toMatchObject({ ok: false, error: { code: "CALL_CANCELLED" } });
    expect(await behind).toMatchObject({ ok: false, error: { code: "CALL_CANCELLED" } });
    expect(await looping).toMatchObject({ ok: false, error: { code: "GUEST_TIMEOUT" } });
    // Only the loop ever ran a guest.
    expect(tasks.guestsStarted()).toBe(1);
    for (const signal of [inQueue.signal, onWorker.signal]) {
      expect(answers(signal)).toMatchObject({ accepted: 1, tasks: 1 });
      expect(listeners(signal)).toBe(0);
    }
  });
});

describe("a task cancelled while its guest runs", () => {
  it("is answered CALL_CANCELLED once, at once; its scheduler slot is given back at once, the sandbox rests only once the guest has ended, and the worker serves the next call without a restart", async () => {
    const ended: unknown[] = [];
    sandbox = createSandbox({ workers: 1, spareWorkers: 0, spin: { caller: 0 }, onWorkerEnded: (e) => ended.push(e) });
    const slow = await sandbox.load(fixture("contract-hook"), { limits: { timeoutMs: 5_000, fuel: BACKSTOP_FUEL } });
    await sandbox.ready();
    const answers = watchAnswers();
    const tasks = watchTasks();
    const controller = new AbortController();
    const running = sandbox.invokeBytes(slow, spinRequest(200_000_000), { signal: controller.signal });
    await until(() => tasks.guestsStarted() === 1);
    controller.abort(new Error("the client went away"));
    expect(await running).toMatchObject({ ok: false, error: { code: "CALL_CANCELLED", details: { reason: "Error: the client went away" } } });
    expect(scheduler(sandbox).running).toBe(0);
    expect(listeners(controller.signal)).toBe(0);
    // The abandoned guest runs its course, the sandbox not resting under it; the run's own
    // answer, after the cancellation's, is refused.
    expect(scheduler(sandbox).busy).toBe(true);
    expect(await until(() => callsHeld(sandbox!) === 0 && !scheduler(sandbox!).busy)).toBe(true);
    expect(answers(controller.signal)).toEqual({ accepted: 1, ignored: 1, tasks: 1 });
    expect(await sandbox.invokeBytes(slow, spinRequest(10))).toMatchObject({ ok: true, outcome: { kind: "continue" } });
    expect(ended).toEqual([]);
  });
});

describe("a task whose worker dies", () => {
  it("running, is answered WORKER_CRASHED once; one queued behind it on that worker is run on the replacement and answered once", async () => {
    sandbox = createSandbox({ workers: 1, spareWorkers: 0, spin: { caller: 0 } });
    const loop = await sandbox.load(fixture("loop"), { limits: { timeoutMs: 10_000, fuel: BACKSTOP_FUEL } });
    const ok = await sandbox.load(fixture("continue"));
    await sandbox.ready();
    const answers = watchAnswers();
    const tasks = watchTasks();
    const first = new AbortController();
    const second = new AbortController();
    const running = sandbox.invoke(loop, request(), { signal: first.signal });
    await until(() => tasks.guestsStarted() === 1);
    const behind = sandbox.invoke(ok, request(), { signal: second.signal });
    expect(await until(() => callsHeld(sandbox!) === 2)).toBe(true);
    await busyThread(sandbox).terminate();
    expect(await running).toMatchObject({ ok: false, error: { code: "WORKER_CRASHED" } });
    expect(await behind).toMatchObject({ ok: true, outcome: { kind: "continue" } });
    expect(answers(first.signal)).toEqual({ accepted: 1, ignored: 0, tasks: 1 });
    // Run again as the same task: one task, one answer, one listener for its whole life.
    expect(answers(second.signal)).toEqual({ accepted: 1, ignored: 0, tasks: 1 });
    first.abort();
    second.abort();
    expect(await running).toMatchObject({ ok: false, error: { code: "WORKER_CRASHED" } });
    expect(answers(first.signal).accepted + answers(second.signal).accepted).toBe(2);
    expect(listeners(first.signal) + listeners(second.signal)).toBe(0);
  });
});

describe("abort listeners", () => {
  it("none is left on a signal after 1,000 tasks on it are answered, calls and batched stages alike, late aborts included", async () => {
    sandbox = createSandbox({ workers: 1, spareWorkers: 0 });
    const ok = await sandbox.load(fixture("continue"));
    await sandbox.ready();
    const answers = watchAnswers();
    const controller = new AbortController();
    const { signal } = controller;
    for (let round = 0; round < 10; round++) {
      // Fifty at once: most wait in the queue, and the stages among them go to the worker in batches.
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => (i < 25
        ? sandbox!.invoke(ok, request(), { signal })
        : sandbox!.runStage(stage(), [{ module: ok, timeoutMs: 1_000 }], signal))));
      expect(results.every((r) => r.ok)).toBe(true);
      expect(listeners(signal)).toBe(0);
    }
    for (let i = 0; i < 500; i++) await sandbox.invoke(ok, request(), { signal });
    expect(listeners(signal)).toBe(0);
    expect(answers(signal)).toEqual({ accepted: 1_000, ignored: 0, tasks: 1_000 });
    expect(answers.workerTasks()).toContain("stages");
    // An abort after every answer finds nothing to do.
    controller.abort();
    expect(answers(signal)).toEqual({ accepted: 1_000, ignored: 0, tasks: 1_000 });
  });
});
