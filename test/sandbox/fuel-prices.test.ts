// Fuel prices what it buys: the costliest unit of each kind of work ends
// in GUEST_FUEL_EXHAUSTED at the default budget, on a worker that keeps serving, and a guest
// cannot catch what ends its call. Not timed: the time limit is set far off, so what stops
// each guest is its fuel; how long that takes is bench scenario 18's business.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, DEFAULT_LIMITS, type Sandbox } from "../../host/sandbox/index.js";
import { HOST_BYTE_COST, HOST_CALL_COST, KV_CALL_COST } from "../../host/sandbox/loader/fuel/cost-model.js";
import { fixture } from "../helpers/fixtures.js";
import { request } from "../helpers/requests.js";
import { FUEL_PRICE_FIXTURES } from "../bench/fuel-prices.js";

let sandbox: Sandbox;
beforeAll(async () => { sandbox = createSandbox({ workers: 1 }); await sandbox.ready(); });
afterAll(() => sandbox.close());

const kvScope = { spaceId: "space-a", ownerId: "binding-1" };
const load = (name: string, limits: { fuel?: number } = {}) => sandbox.load(fixture(name), {
  limits: { timeoutMs: 10_000, ...limits }, ...(name.includes("kv") ? { capabilities: ["kv" as const] } : {}),
});
const invoke = (mod: Awaited<ReturnType<typeof load>>, name: string) => sandbox.invoke(mod, request(), name.includes("kv") ? { kvScope } : {});

/** The next call on the same (only) lane answers, and no worker was replaced. */
async function laneServes(threads: number): Promise<void> {
  const next = await sandbox.invoke(await sandbox.load(fixture("continue")), request());
  expect(next.ok && next.outcome.kind).toBe("continue");
  expect(sandbox.threadCount).toBe(threads);
}

describe("the costliest unit of each kind of work is stopped by fuel at the default budget", () => {
  for (const { name, code, what } of FUEL_PRICE_FIXTURES) {
    it(`${name} (${what}) ends in ${code}, and the worker serves the next call`, async () => {
      const mod = await load(name);
      const threads = sandbox.threadCount;
      const r = await invoke(mod, name);
      expect(!r.ok && r.error.code).toBe(code);
      if (code === "GUEST_FUEL_EXHAUSTED") expect(!r.ok && r.error.details).toEqual({ used: r.fuel, limit: DEFAULT_LIMITS.fuel });
      expect(sandbox.restartLimited(mod)).toBe(false);
      await laneServes(threads);
    });
  }
});

describe("a guest cannot catch what ends its call", () => {
  it("abort never returns: a guest that catches it with catch_all ends GUEST_ABORTED at the first call, having used almost nothing", async () => {
    const r = await invoke(await load("fuel-price-abort-caught"), "fuel-price-abort-caught");
    expect(!r.ok && r.error.code).toBe("GUEST_ABORTED");
    expect(!r.ok && r.error.details).toEqual({ guestMessage: "caught" });
    // One pass of the loop and one abort: the guest never ran its handler.
    expect(r.fuel).toBeLessThan(HOST_CALL_COST + 100);
  });

  it("a trap the host raises (kv arguments out of bounds) ends the call, though the guest catches everything", async () => {
    const r = await invoke(await load("fuel-price-kv-out-of-bounds"), "fuel-price-kv-out-of-bounds");
    expect(!r.ok && r.error.code).toBe("GUEST_TRAP");
    expect(!r.ok && r.error.message).toMatch(/kv_get: key out of bounds/);
    expect(r.fuel).toBeLessThan(KV_CALL_COST + 256 * HOST_BYTE_COST + 100);
  });
});

describe("host functions are priced by call and by the bytes they move", () => {
  it("kv_get of a 64 KiB value pays for the value's bytes: a call ends once the value would overdraw its budget", async () => {
    // kv_set of the 64 KiB value, then kv_get of it (the key's 3 bytes each, the value's both
    // ways), and room for the handler's few instructions: the loop goes round once.
    const pair = 2 * KV_CALL_COST + HOST_BYTE_COST * (3 + 65_536 + 3 + 65_536);
    const r = await invoke(await load("fuel-price-kv-get-large", { fuel: pair + 1_000 }), "fuel-price-kv-get-large");
    expect(!r.ok && r.error.code).toBe("GUEST_FUEL_EXHAUSTED");
    // The second kv_get is charged its price and refused before it runs: the fuel used is the
    // first pass, the handler's instructions and that price.
    expect(r.fuel).toBeGreaterThan(pair + KV_CALL_COST);
    expect(r.fuel).toBeLessThan(pair + KV_CALL_COST + 1_000);
  });

  it("a kv guest uses the same fuel on every call that finds the store the same", async () => {
    const mod = await load("kv-counter");
    const runs = [];
    // A fresh scope each time: every call finds its counter absent, reads nothing and writes one byte.
    for (let i = 0; i < 5; i++) runs.push((await sandbox.invoke(mod, request(), { kvScope: { spaceId: `price-${i}`, ownerId: "b" } })).fuel);
    expect(new Set(runs).size).toBe(1);
    // Two kv calls, a 1-byte key each and a 1-byte value written: priced, not free.
    expect(runs[0]).toBeGreaterThan(2 * KV_CALL_COST + HOST_BYTE_COST * 3);
  });
});
