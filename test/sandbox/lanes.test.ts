/**
 * How calls reach the workers: one lane per worker (a long-running task fed through its
 * own port), spare workers that take over at once, and the polling options.
 */
import { afterEach, describe, expect, it } from "vitest";
import { encode } from "../../abi/codec.js";
import { createSandbox, type Sandbox } from "../../host/sandbox/index.js";
import { Lane } from "../../host/sandbox/main/lane.js";
import { SluiceError } from "../../host/errors/sluice-error.js";
import { fixture, BACKSTOP_FUEL } from "../helpers/fixtures.js";
import { request } from "../helpers/requests.js";
import { runToExit } from "../helpers/child.js";
import { handedOver, resting } from "../helpers/lanes.js";
import { until } from "../helpers/until.js";

let sandbox: Sandbox | undefined;
afterEach(async () => { await sandbox?.close(); sandbox = undefined; });

const PAGE = 65536;

describe("lanes", () => {
  it("ready() resolves when every worker, spares included, is serving", async () => {
    sandbox = createSandbox({ workers: 2, spareWorkers: 1 });
    await sandbox.ready();
    expect(sandbox.threadCount).toBe(3);
    const lanes = [...(sandbox as unknown as { lanes: Set<Lane> }).lanes];
    expect(lanes.map((l) => l.ready && l.threadId > 0)).toEqual([true, true, true]);
  });

  it("after a runaway guest's worker is terminated, the next call runs on a spare that was already serving", async () => {
    sandbox = createSandbox({ workers: 1, spareWorkers: 1 });
    await sandbox.ready();
    const before = new Set([...(sandbox as unknown as { lanes: Set<Lane> }).lanes].map((l) => l.threadId));
    const loop = await sandbox.load(fixture("loop"), { limits: { timeoutMs: 30, fuel: BACKSTOP_FUEL } });
    const ok = await sandbox.load(fixture("continue"));
    const served: number[] = [];
    const post = Lane.prototype.post;
    Lane.prototype.post = function (this: Lane, task: unknown, spin: number) { served.push(this.threadId); return post.call(this, task, spin); };
    try {
      const r = await sandbox.invoke(loop, request());
      expect(!r.ok && r.error.code).toBe("GUEST_TIMEOUT");
      served.length = 0;
      expect((await sandbox.invoke(ok, request())).ok).toBe(true);
      expect(served).toHaveLength(1);
      expect(before.has(served[0]!)).toBe(true);
    } finally {
      Lane.prototype.post = post;
    }
  });

  it("a call waiting on a worker behind a runaway guest runs once that guest is stopped, and succeeds", async () => {
    sandbox = createSandbox({ workers: 1 });
    await sandbox.ready();
    const loop = await sandbox.load(fixture("loop"), { limits: { timeoutMs: 100, fuel: BACKSTOP_FUEL } });
    const ok = await sandbox.load(fixture("continue"));
    const looping = sandbox.invoke(loop, request());
    const behind = sandbox.invoke(ok, request());
    expect((await looping).ok).toBe(false);
    expect(await behind).toMatchObject({ ok: true, outcome: { kind: "continue" } });
  });

  it("cancelling a call that waits on a worker behind another answers at once and leaves the running call alone", async () => {
    sandbox = createSandbox({ workers: 1 });
    await sandbox.ready();
    const loop = await sandbox.load(fixture("loop"), { limits: { timeoutMs: 1_500, fuel: BACKSTOP_FUEL } });
    const ok = await sandbox.load(fixture("continue"));
    const looping = sandbox.invoke(loop, request());
    const controller = new AbortController();
    const behind = sandbox.invoke(ok, request(), { signal: controller.signal });
    await until(() => handedOver(sandbox!));
    controller.abort();
    const first = await Promise.race([behind.then(() => "behind"), looping.then(() => "loop")]);
    expect(first).toBe("behind");
    expect(!(await behind).ok && (await behind as { error: { code: string } }).error.code).toBe("CALL_CANCELLED");
    const r = await looping;
    expect(!r.ok && r.error.code).toBe("GUEST_TIMEOUT");
  });

  it("with polling turned off on both sides, workers sleep between calls and every call is still answered", async () => {
    sandbox = createSandbox({ workers: 2, spin: { caller: 0, worker: 0 } });
    const ok = await sandbox.load(fixture("continue"));
    const bytes = encode(request());
    for (let i = 0; i < 200; i++) expect((await sandbox.invokeBytes(ok, bytes)).ok).toBe(true);
    const parallel = await Promise.all(Array.from({ length: 200 }, () => sandbox!.invokeBytes(ok, bytes)));
    expect(parallel.every((r) => r.ok)).toBe(true);
  });

  it("refuses bad polling and spare settings with CONFIG_INVALID", () => {
    for (const options of [{ spin: { caller: -1 } }, { spin: { worker: 1e9 } }, { spareWorkers: -1 }, { spareWorkers: 1.5 }, { idleMs: -1 }]) {
      let error: unknown;
      try { createSandbox(options).close(); } catch (err) { error = err; }
      expect((error as SluiceError).code).toBe("CONFIG_INVALID");
    }
  });
});

describe("an idle sandbox", () => {
  it("lets go of its workers after idleMs and takes them back, warm, on the next call", async () => {
    sandbox = createSandbox({ workers: 1, idleMs: 50 });
    const ok = await sandbox.load(fixture("continue"));
    expect((await sandbox.invoke(ok, request())).ok).toBe(true);
    const lanes = (sandbox as unknown as { lanes: Set<Lane> }).lanes;
    await until(() => resting(sandbox!));
    expect([...lanes].filter((l) => !l.dead)).toHaveLength(0);
    expect(sandbox.threadCount).toBe(2); // the threads stay started
    expect((await sandbox.invoke(ok, request())).ok).toBe(true);
    await sandbox.ready();
    expect([...lanes].filter((l) => l.ready && !l.dead)).toHaveLength(2);
  });

  it("does not start a terminated worker's replacement while resting, and takes back only what is missing", async () => {
    sandbox = createSandbox({ workers: 1, spareWorkers: 1, idleMs: 50 });
    const loop = await sandbox.load(fixture("loop"), { limits: { timeoutMs: 30, fuel: BACKSTOP_FUEL } });
    const ok = await sandbox.load(fixture("continue"));
    await sandbox.ready();
    expect((await sandbox.invoke(loop, request())).ok).toBe(false);
    const lanes = (sandbox as unknown as { lanes: Set<Lane> }).lanes;
    await until(() => resting(sandbox!));
    // A replacement that wrongly started would appear within its delay (250 ms): nothing to wait on but that window.
    await new Promise((r) => setTimeout(r, 400));
    expect([...lanes].filter((l) => !l.dead)).toHaveLength(0);
    expect((await sandbox.invoke(ok, request())).ok).toBe(true);
    await sandbox.ready();
    expect([...lanes].filter((l) => !l.dead)).toHaveLength(2);
  });

  it("right after resting, a burst within what the workers hold is not refused with QUEUE_FULL", async () => {
    sandbox = createSandbox({ workers: 1, maxQueue: 0, idleMs: 50 });
    const ok = await sandbox.load(fixture("continue"));
    await sandbox.ready();
    await until(() => resting(sandbox!));
    const burst = await Promise.all([sandbox.invoke(ok, request()), sandbox.invoke(ok, request())]);
    expect(burst.map((r) => r.ok)).toEqual([true, true]);
  });

  it("does not keep a process alive that forgot to close it", async () => {
    const script = `
      import { createSandbox } from ${JSON.stringify(new URL("../../dist/host/sandbox/index.js", import.meta.url).href)};
      import { readFileSync } from "node:fs";
      const sandbox = createSandbox({ workers: 1, idleMs: 100 });
      const ok = await sandbox.load(readFileSync(${JSON.stringify(new URL("../../build/fixtures/continue.wasm", import.meta.url).pathname)}));
      const r = await sandbox.invoke(ok, { abi: "1.0", point: "tool.before", context: {}, payload: {}, config: {} });
      // A call that never runs (cancelled before it starts) must not keep the sandbox awake.
      const c = await sandbox.invoke(ok, { abi: "1.0", point: "tool.before", context: {}, payload: {}, config: {} }, { signal: AbortSignal.abort() });
      console.log(r.ok && !c.ok ? "called" : "unexpected");
    `;
    const { out, code } = await runToExit(["--input-type=module", "-e", script]);
    expect(out.trim()).toBe("called");
    expect(code).toBe(0);
  });
});

describe("guest memory", () => {
  it("starts at the declared size plus room for four times the request, whatever earlier calls grew to", async () => {
    sandbox = createSandbox({ workers: 1, spareWorkers: 0 });
    const ok = await sandbox.load(fixture("continue"));
    const bomb = await sandbox.load(fixture("memory-bomb"));
    const small = encode(request());
    const large = encode(request("tool.before", { blob: "x".repeat(40_000) }));
    const pages = (bytes: Uint8Array) => 1 + Math.floor((4 * bytes.byteLength) / PAGE);
    expect(pages(large)).toBe(3);
    for (let round = 0; round < 2; round++) {
      expect((await sandbox.invokeBytes(ok, small)).memoryBytes).toBe(pages(small) * PAGE);
      expect((await sandbox.invokeBytes(ok, large)).memoryBytes).toBe(pages(large) * PAGE);
      const grown = await sandbox.invokeBytes(bomb, large);
      expect(grown.memoryBytes).toBeGreaterThan(pages(large) * PAGE);
    }
  });
});
