/**
 * A scheduled task (host/sandbox/main/scheduled-task.ts) on its own, without workers: it is
 * answered once, an abort does what the task's place says, and its abort listener lives
 * exactly as long as the task waits for its answer.
 */
import { getEventListeners } from "node:events";
import { describe, expect, it } from "vitest";
import { NO_PROGRESS, ScheduledTask, type TaskWork } from "../../host/sandbox/main/scheduled-task.js";

const work: TaskWork = { kind: "task", task: { kind: "calls", calls: [], requests: [], progress: NO_PROGRESS, kvPath: null }, limits: [], look: undefined };
const listeners = (signal: AbortSignal): number => getEventListeners(signal, "abort").length;
const done = { ok: true as const, value: "done" };

describe("a scheduled task", () => {
  it("keeps its first answer: a later one is refused", async () => {
    const t = new ScheduledTask<string>(work);
    expect(t.settle(done)).toBe(true);
    expect(t.settle({ ok: false, index: 0, error: { code: "WORKER_CRASHED", message: "late" } })).toBe(false);
    expect(await t.outcome).toEqual(done);
    expect(t.phase).toBe("settled");
  });

  it("cancelled while it waits, leaves the queue and is answered CALL_CANCELLED once", async () => {
    const controller = new AbortController();
    const t = new ScheduledTask(work, controller.signal);
    const left: unknown[] = [];
    t.wait((task) => left.push(task));
    controller.abort();
    expect(left).toEqual([t]);
    expect(await t.outcome).toMatchObject({ ok: false, index: 0, error: { code: "CALL_CANCELLED" } });
    expect(t.settle(done)).toBe(false);
  });

  it("cancelled while it runs, is answered what its runner says, with the signal's reason", async () => {
    const controller = new AbortController();
    const t = new ScheduledTask(work, controller.signal);
    const reasons: unknown[] = [];
    t.run((reason) => { reasons.push(reason); return { ok: false, index: 2, error: { code: "CALL_CANCELLED", message: "stopped" } }; });
    controller.abort("gone");
    expect(reasons).toEqual(["gone"]);
    expect(await t.outcome).toEqual({ ok: false, index: 2, error: { code: "CALL_CANCELLED", message: "stopped" } });
  });

  it("cancelled after its work finished (the runner says nothing), keeps the work's answer", async () => {
    const controller = new AbortController();
    const t = new ScheduledTask<string>(work, controller.signal);
    t.run(() => undefined);
    controller.abort();
    expect(t.settled).toBe(false);
    expect(t.settle(done)).toBe(true);
    expect(await t.outcome).toEqual(done);
  });

  it("ignores an abort that comes after its answer", async () => {
    const controller = new AbortController();
    const t = new ScheduledTask<string>(work, controller.signal);
    let asked = 0;
    t.run(() => { asked++; return { ok: false, index: 0, error: { code: "CALL_CANCELLED", message: "late" } }; });
    t.settle(done);
    controller.abort();
    expect(asked).toBe(0);
    expect(await t.outcome).toEqual(done);
  });

  it("holds one listener while it waits for its answer and none after: 1,000 tasks on one signal leave none behind", () => {
    const controller = new AbortController();
    const tasks = Array.from({ length: 1_000 }, () => new ScheduledTask<string>(work, controller.signal));
    expect(listeners(controller.signal)).toBe(1_000);
    tasks.forEach((t, i) => (i % 2 === 0 ? t.wait(() => {}) : t.run(() => undefined)));
    for (const t of tasks) t.settle(done);
    expect(listeners(controller.signal)).toBe(0);
  });

  it("adds no listener to a signal that has already aborted", () => {
    const signal = AbortSignal.abort();
    const t = new ScheduledTask(work, signal);
    expect(t.cancelled).toBe(true);
    expect(listeners(signal)).toBe(0);
  });
});
