import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { encode } from "../../abi/codec.js";
import { createSandbox, type Sandbox } from "../../host/sandbox/index.js";
import { fixture, BACKSTOP_FUEL } from "../helpers/fixtures.js";
import { request } from "../helpers/requests.js";
import { handedOver, watchTasks } from "../helpers/lanes.js";
import { until } from "../helpers/until.js";

let sandbox: Sandbox;
beforeAll(() => { sandbox = createSandbox({ workers: 2 }); });
afterAll(() => sandbox.close());

describe("time limit", () => {
  it("stops a looping guest within its limit plus a small margin", async () => {
    const mod = await sandbox.load(fixture("loop"), { limits: { timeoutMs: 40, fuel: BACKSTOP_FUEL } });
    // The limit counts from the guest's start: the workers' boot (this file's first call) is not in it.
    await sandbox.ready();
    const t0 = performance.now();
    const r = await sandbox.invoke(mod, request());
    const elapsed = performance.now() - t0;
    expect(!r.ok && r.error.code).toBe("GUEST_TIMEOUT");
    expect(elapsed).toBeGreaterThanOrEqual(39);
    expect(elapsed).toBeLessThan(40 + 500);
  });

  it("does not harm calls running on other workers, and the pool is back to full strength", async () => {
    const loop = await sandbox.load(fixture("loop"), { limits: { timeoutMs: 60, fuel: BACKSTOP_FUEL } });
    const ok = await sandbox.load(fixture("continue"));
    const looping = sandbox.invoke(loop, request());
    const others = Array.from({ length: 50 }, () => sandbox.invoke(ok, request()));
    const results = await Promise.all(others);
    expect(results.every((r) => r.ok)).toBe(true);
    expect((await looping).ok).toBe(false);
    await sandbox.ready();
    expect(sandbox.threadCount).toBe(2 + sandbox.options.spareWorkers);
  });

  it("a per-call timeout can shorten but not extend the plugin's limit", async () => {
    const mod = await sandbox.load(fixture("loop"), { limits: { timeoutMs: 80, fuel: BACKSTOP_FUEL } });
    const t0 = performance.now();
    const r = await sandbox.invoke(mod, request(), { timeoutMs: 10_000 });
    expect(!r.ok && r.error.code).toBe("GUEST_TIMEOUT");
    expect(performance.now() - t0).toBeLessThan(80 + 500);
  });

  it("the caller's AbortSignal cancels a running call with CALL_CANCELLED", async () => {
    const mod = await sandbox.load(fixture("loop"), { limits: { timeoutMs: 5_000, fuel: BACKSTOP_FUEL } });
    const controller = new AbortController();
    const tasks = watchTasks();
    const t0 = performance.now();
    const running = sandbox.invoke(mod, request(), { signal: controller.signal });
    await until(() => tasks.guestsStarted() > 0);
    vi.restoreAllMocks();
    controller.abort(new Error("user went away"));
    const r = await running;
    expect(!r.ok && r.error.code).toBe("CALL_CANCELLED");
    expect(performance.now() - t0).toBeLessThan(1_000);
    await sandbox.ready();
    expect(sandbox.threadCount).toBe(2 + sandbox.options.spareWorkers);
  });

  it("an already aborted signal never starts the call", async () => {
    const mod = await sandbox.load(fixture("continue"));
    const r = await sandbox.invoke(mod, request(), { signal: AbortSignal.abort() });
    expect(!r.ok && r.error.code).toBe("CALL_CANCELLED");
  });

  it("in a task of several calls, a timeout names the call that caused it", async () => {
    const ok = await sandbox.load(fixture("continue"));
    const loop = await sandbox.load(fixture("loop"), { limits: { timeoutMs: 30, fuel: BACKSTOP_FUEL } });
    const req = encode(request());
    const results = await sandbox.runCalls([{ module: ok, request: req }, { module: loop, request: req }, { module: ok, request: req }]);
    expect(results.map((r) => (r.ok ? "ok" : r.error.code))).toEqual(["GUEST_TIMEOUT", "GUEST_TIMEOUT", "GUEST_TIMEOUT"]);
    const [first, second] = results;
    expect(!second!.ok && second!.error.details).toMatchObject({ call: 1, limitMs: 30 });
    expect(!first!.ok && first!.error.message).toMatch(/not completed/);
  });
});

describe("memory limit", () => {
  it("a guest growing past its limit fails with GUEST_MEMORY_LIMIT and never holds more than the limit", async () => {
    const limit = 2 * 1024 * 1024;
    const mod = await sandbox.load(fixture("memory-bomb"), { limits: { memoryBytes: limit } });
    const r = await sandbox.invoke(mod, request());
    expect(!r.ok && r.error.code).toBe("GUEST_MEMORY_LIMIT");
    expect(r.memoryBytes).toBeGreaterThan(0);
    expect(r.memoryBytes).toBeLessThanOrEqual(limit);
  });

  it("the limit is the module's own memory maximum, so a larger limit lets it grow further", async () => {
    const small = await sandbox.invoke(await sandbox.load(fixture("memory-bomb"), { limits: { memoryBytes: 1 << 20 } }), request());
    const large = await sandbox.invoke(await sandbox.load(fixture("memory-bomb"), { limits: { memoryBytes: 8 << 20 } }), request());
    expect(small.memoryBytes).toBeLessThanOrEqual(1 << 20);
    expect(large.memoryBytes).toBeGreaterThan(4 << 20);
    expect(large.memoryBytes).toBeLessThanOrEqual(8 << 20);
  });
});

describe("input and output size limits", () => {
  it("an oversize request is refused before the guest runs", async () => {
    const mod = await sandbox.load(fixture("stateful"), { limits: { inputBytes: 1024 } });
    const r = await sandbox.invoke(mod, request("tool.before", { blob: "x".repeat(2000) }));
    expect(!r.ok && r.error.code).toBe("INPUT_TOO_LARGE");
    expect(r.memoryBytes).toBe(0);
  });

  it("an oversize reply is refused before it is copied", async () => {
    const mod = await sandbox.load(fixture("continue"), { limits: { outputBytes: 8 } });
    const r = await sandbox.invoke(mod, request());
    expect(!r.ok && r.error).toMatchObject({ code: "OUTPUT_TOO_LARGE", details: { size: 26, limit: 8 } });
  });
});

describe("state and capabilities", () => {
  it("no state survives from one invocation to the next", async () => {
    const mod = await sandbox.load(fixture("stateful"));
    for (let i = 0; i < 5; i++) {
      const r = await sandbox.invoke(mod, request());
      expect(r.ok && r.outcome.annotations).toEqual({ calls: 1 });
    }
  });

  it("the kv capability keeps state per (space, binding), and tenants never see each other's keys", async () => {
    const mod = await sandbox.load(fixture("kv-counter"), { capabilities: ["kv"] });
    const call = async (spaceId: string, bindingId = "b1") => {
      const r = await sandbox.invoke(mod, request(), { kvScope: { spaceId, ownerId: bindingId } });
      return r.ok ? r.outcome.annotations?.n : r.error.code;
    };
    expect(await call("tenant-a")).toBe(1);
    expect(await call("tenant-a")).toBe(2);
    expect(await call("tenant-b")).toBe(1);
    expect(await call("tenant-a", "b2")).toBe(1);
    expect(await call("tenant-a")).toBe(3);
  });

  it("logs are kept up to 64 lines of 1 KiB per call", async () => {
    const mod = await sandbox.load(fixture("log-spam"));
    const r = await sandbox.invoke(mod, request());
    expect(r.ok).toBe(true);
    expect(r.logs).toHaveLength(64);
    expect(r.logs[0]).toEqual({ level: 1, message: "x".repeat(1024) });
  });
});

describe("back-pressure", () => {
  it("a full queue is refused quickly with QUEUE_FULL", async () => {
    const small = createSandbox({ workers: 1, maxQueue: 2 });
    try {
      const loop = await small.load(fixture("loop"), { limits: { timeoutMs: 200, fuel: BACKSTOP_FUEL } });
      const ok = await small.load(fixture("continue"));
      await small.ready();
      const running = small.invoke(loop, request());
      await until(() => handedOver(small));
      // One waits on the worker behind the running call, two in the queue.
      const queued = [small.invoke(ok, request()), small.invoke(ok, request()), small.invoke(ok, request())];
      // Refused without waiting: before the event loop turns at all.
      let turned = false;
      setImmediate(() => { turned = true; });
      const refused = await small.invoke(ok, request());
      expect(!refused.ok && refused.error.code).toBe("QUEUE_FULL");
      expect(turned).toBe(false);
      expect((await running).ok).toBe(false);
      expect((await Promise.all(queued)).every((r) => r.ok)).toBe(true);
    } finally {
      await small.close();
    }
  });
});
