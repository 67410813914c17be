/**
 * Faults the host must survive: a worker that dies mid-call, and a queue that fills under
 * load. Every call gets an answer with a code; the pool is back to full strength after.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createHost, type Host } from "../../host/index.js";
import { createSandbox, type Sandbox } from "../../host/sandbox/index.js";
import { Lane } from "../../host/sandbox/main/lane.js";
import { PROGRESS_INDEX, PROGRESS_WAITING } from "../../host/sandbox/protocol.js";
import { fixture, BACKSTOP_FUEL } from "../helpers/fixtures.js";
import { request } from "../helpers/requests.js";
import { until } from "../helpers/until.js";
import { busyThread, type PoolInternals as Internals } from "../helpers/lanes.js";

let sandbox: Sandbox | undefined;
let host: Host | undefined;
afterEach(async () => { await sandbox?.close(); await host?.close(); sandbox = host = undefined; });

/** The progress word (protocol.ts) of each task posted to a lane, in order: PROGRESS_WAITING until a worker takes the task. */
let progress: Int32Array[] = [];
beforeEach(() => {
  progress = [];
  const post = Lane.prototype.post;
  vi.spyOn(Lane.prototype, "post").mockImplementation(function (this: Lane, task: unknown, spinMicros: number) {
    progress.push(new Int32Array((task as { progress: SharedArrayBuffer }).progress, 0, 2));
    return post.call(this, task, spinMicros);
  });
});
afterEach(() => { vi.restoreAllMocks(); });

/**
 * Until a worker has taken the first task posted (the looping call), however long a loaded
 * machine takes: a worker runs at a lower priority and can wait for a core well past a fixed
 * 50 ms, and a task still queued when its worker dies is not failed but runs elsewhere.
 */
const firstTaskTaken = (): Promise<boolean> => until(() => progress[0] !== undefined && Atomics.load(progress[0], PROGRESS_INDEX) !== PROGRESS_WAITING);


describe("a worker that dies mid-call", () => {
  it("fails that call with WORKER_CRASHED, quickly, and is replaced", async () => {
    sandbox = createSandbox({ workers: 1 });
    const loop = await sandbox.load(fixture("loop"), { limits: { timeoutMs: 10_000, fuel: BACKSTOP_FUEL } });
    const ok = await sandbox.load(fixture("continue"));
    await sandbox.ready();
    const running = sandbox.invoke(loop, request());
    expect(await firstTaskTaken()).toBe(true);
    const t0 = performance.now();
    await busyThread(sandbox).terminate();
    const r = await running;
    expect(!r.ok && r.error.code).toBe("WORKER_CRASHED");
    expect(!r.ok && r.error.message).toMatch(/worker running the call died/);
    expect(performance.now() - t0).toBeLessThan(1_000);
    await sandbox.ready();
    expect(sandbox.threadCount).toBe(1 + sandbox.options.spareWorkers);
    expect((await sandbox.invoke(ok, request())).ok).toBe(true);
  });

  it("only the call it was running fails: queued calls run on the replacement", async () => {
    sandbox = createSandbox({ workers: 1 });
    const loop = await sandbox.load(fixture("loop"), { limits: { timeoutMs: 10_000, fuel: BACKSTOP_FUEL } });
    const ok = await sandbox.load(fixture("continue"));
    await sandbox.ready();
    const running = sandbox.invoke(loop, request());
    const queued = Array.from({ length: 20 }, () => sandbox!.invoke(ok, request()));
    expect(await firstTaskTaken()).toBe(true);
    await busyThread(sandbox).terminate();
    expect(await running).toMatchObject({ ok: false, error: { code: "WORKER_CRASHED" } });
    expect((await Promise.all(queued)).map((r) => r.ok)).toEqual(queued.map(() => true));
  });

  it("at a boundary, the step's failure policy decides: fail-open skips it, fail-closed fails the call with HOOK_FAILED caused by WORKER_CRASHED", async () => {
    host = createHost({ workers: 1, quarantine: false });
    // A long limit: the worker must die by the kill below, mid-call, not by the watchdog.
    await host.loadPlugin({ id: "looper", version: "1.0.0", wasm: fixture("loop"), limits: { timeoutMs: 10_000, fuel: BACKSTOP_FUEL } });
    const schema = { type: "object" };
    const call = () => host!.tool({ spaceId: "s" }, { toolId: "t", name: "t", schema, arguments: {}, callId: "c" }, async () => "done");
    // Killed once the looping guest is running, however long a loaded machine takes to get
    // there: a lane busy on three checks in a row (30 ms) is the loop, not a short task (a
    // worker's warm-up, another lane's wake-up), and its thread is known by then.
    const killSoon = (): void => {
      let seen: { threadId: number } | undefined;
      let streak = 0;
      void until(() => {
        const { lanes } = host!.sandbox as unknown as Internals;
        const lane = [...lanes].find((l) => l.inFlight > 0);
        streak = lane && lane === seen ? streak + 1 : 0;
        seen = lane;
        const thread = streak >= 3 && lane ? lanes.pool.threads.find((t) => t.threadId === lane.threadId) : undefined;
        if (thread) void thread.terminate();
        return thread !== undefined;
      }, 30_000);
    };
    for (const failurePolicy of ["fail-open", "fail-closed"] as const) {
      host.activate({ revision: failurePolicy === "fail-open" ? 1 : 2, bindings: [{ id: "loop", hookRef: "looper@1.0.0", point: "tool.before", timeoutMs: 10_000, failurePolicy }] });
      await host.sandbox.ready();
      killSoon();
      const r = await call();
      expect(r.hooks[0]?.error?.code).toBe("WORKER_CRASHED");
      if (failurePolicy === "fail-open") expect(r.ok && r.output.view).toBe("done");
      else expect(!r.ok && [r.error.code, (r.error.details?.cause as { code?: string })?.code]).toEqual(["HOOK_FAILED", "WORKER_CRASHED"]);
    }
  });
});

describe("a full queue under load", () => {
  it("refuses the excess quickly with QUEUE_FULL; every call settles and the admitted ones succeed", async () => {
    sandbox = createSandbox({ workers: 2, maxQueue: 16 });
    const ok = await sandbox.load(fixture("contract-hook"));
    const settled: { ok: boolean; code?: string; beforeNextTurn: boolean }[] = [];
    // "Quickly" without a clock: a refusal is answered before the event loop turns at all,
    // so it never waits for a worker, however loaded the machine is.
    let turned = false;
    setImmediate(() => { turned = true; });
    const calls = Array.from({ length: 600 }, async () => {
      const r = await sandbox!.invoke(ok, request("tool.before", { arguments: { q: "x" } }, { mode: "continue" }));
      settled.push({ ok: r.ok, ...(r.ok ? {} : { code: r.error.code }), beforeNextTurn: !turned });
    });
    await Promise.all(calls);
    expect(settled).toHaveLength(600);
    const refused = settled.filter((s) => !s.ok);
    expect(refused.length).toBeGreaterThan(500);
    expect(new Set(refused.map((s) => s.code))).toEqual(new Set(["QUEUE_FULL"]));
    expect(refused.every((s) => s.beforeNextTurn)).toBe(true);
    expect(settled.filter((s) => s.ok).length).toBe(600 - refused.length);
    expect((await sandbox.invoke(ok, request())).ok).toBe(true);
  });

  it("at a boundary, a refused stage answers with QUEUE_FULL and never runs the operation", async () => {
    host = createHost({ workers: 1, maxQueue: 4, quarantine: false });
    await host.loadPlugin({ id: "contract", version: "1.0.0", wasm: fixture("contract-hook") });
    host.activate({ revision: 1, bindings: [{ id: "c", hookRef: "contract@1.0.0", point: "tool.before" }] });
    let executed = 0;
    const results = await Promise.all(Array.from({ length: 200 }, () =>
      host!.tool({ spaceId: "s" }, { toolId: "t", name: "t", schema: { type: "object" }, arguments: {}, callId: "c" }, async () => { executed++; return 1; })));
    const codes = results.map((r) => (r.ok ? "ok" : r.error.code));
    expect(codes.filter((c) => c !== "ok" && c !== "QUEUE_FULL")).toEqual([]);
    expect(codes.filter((c) => c === "QUEUE_FULL").length).toBeGreaterThan(100);
    expect(executed).toBe(codes.filter((c) => c === "ok").length);
    expect(results.filter((r) => !r.ok).every((r) => !r.facts.called)).toBe(true);
  });

  it("a stage after the real call waits for its turn however full the queue; a new operation's before stage is refused", async () => {
    host = createHost({ workers: 1, maxQueue: 0, quarantine: false });
    await host.loadPlugin({ id: "looper", version: "1.0.0", wasm: fixture("loop"), limits: { timeoutMs: 800, fuel: BACKSTOP_FUEL } });
    await host.loadPlugin({ id: "contract", version: "1.0.0", wasm: fixture("contract-hook") });
    host.activate({ revision: 1, bindings: [
      { id: "slow", hookRef: "looper@1.0.0", point: "tool.before", timeoutMs: 800, failurePolicy: "fail-open", match: { toolIds: ["slow"] } },
      { id: "gate", hookRef: "contract@1.0.0", point: "tool.before", match: { toolIds: ["gated"] } },
      { id: "after", hookRef: "contract@1.0.0", point: "tool.after", failurePolicy: "fail-closed", match: { toolIds: ["called"] } },
    ] });
    await host.sandbox.ready();
    const executed: string[] = [];
    const call = (toolId: string) => host!.tool({ spaceId: "s" }, { toolId, name: toolId, schema: { type: "object" }, arguments: {}, callId: "c" }, async () => { executed.push(toolId); return 1; });
    // The only worker loops for 800 ms (room for a loaded machine); the queue holds nothing beyond the task it takes next.
    const slow = call("slow");
    await firstTaskTaken();
    // Eight tools are called at once (no before hook); each one's after stage needs the busy worker.
    const called = Array.from({ length: 8 }, () => call("called"));
    await until(() => executed.filter((t) => t === "called").length === 8);
    const gated = await call("gated");
    expect(!gated.ok && gated.error.code).toBe("QUEUE_FULL");
    expect(gated.facts.called).toBe(false);
    const results = await Promise.all(called);
    expect(results.map((r) => (r.ok ? "ok" : r.error.code))).toEqual(Array(8).fill("ok"));
    expect(executed.filter((t) => t === "called")).toHaveLength(8);
    expect((await slow).ok).toBe(true);
  });

  it("streams under way keep streaming through a full queue: their chunk stages wait, none is cut", async () => {
    host = createHost({ workers: 1, maxQueue: 0, quarantine: false });
    await host.loadPlugin({ id: "looper", version: "1.0.0", wasm: fixture("loop"), limits: { timeoutMs: 300, fuel: BACKSTOP_FUEL } });
    await host.loadPlugin({ id: "contract", version: "1.0.0", wasm: fixture("contract-hook") });
    host.activate({ revision: 1, bindings: [
      { id: "slow", hookRef: "looper@1.0.0", point: "tool.before", timeoutMs: 300, failurePolicy: "fail-open" },
      { id: "chunks", hookRef: "contract@1.0.0", point: "model.chat.chunk", failurePolicy: "fail-closed" },
    ] });
    await host.sandbox.ready();
    const slow = host.tool({ spaceId: "s" }, { toolId: "t", name: "t", schema: { type: "object" }, arguments: {}, callId: "c" }, async () => 1);
    await firstTaskTaken();
    const streams = Array.from({ length: 6 }, async (_, i) => {
      const stream = host!.chatStream({ spaceId: "s" }, { model: "m", messages: [{ role: "user", content: "hi" }] }, async function* () {
        for (const piece of ["one ", "two ", "three"]) yield { delta: `${i}:${piece}` };
      });
      let text = "";
      for await (const e of stream) text += e.delta;
      const r = await stream.result;
      return { text, code: r.ok ? "ok" : r.error.code };
    });
    expect(await Promise.all(streams)).toEqual(Array.from({ length: 6 }, (_, i) => ({ text: `${i}:one ${i}:two ${i}:three`, code: "ok" })));
    expect((await slow).ok).toBe(true);
  });
});
