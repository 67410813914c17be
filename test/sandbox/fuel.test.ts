// Fuel: a guest meters its own work against limits.fuel, stops itself when the
// budget is spent, and the worker that ran it serves the next call at once.
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encode } from "../../abi/codec.js";
import { isSluiceError } from "../../host/errors/sluice-error.js";
import { createSandbox, DEFAULT_LIMITS, HOST_MAX_LIMITS, resolveLimits, type LoadedModule, type Sandbox } from "../../host/sandbox/index.js";
import { CONTINUE_FUEL, fixture, pluginWasm } from "../helpers/fixtures.js";
import { request } from "../helpers/requests.js";
import { benignCallSucceeds } from "../helpers/benign-call.js";
import { expectEndsByFuel } from "../helpers/fuel-ending.js";
import { TABLE_ENTRY_COST, TABLE_OP_COST } from "../../host/sandbox/loader/fuel/cost-model.js";

let sandbox: Sandbox;
beforeAll(async () => { sandbox = createSandbox({ workers: 2 }); await sandbox.ready(); });
afterAll(() => sandbox.close());


/**
 * One call of a whole-table fixture: 40 units for each of its 40,000 entries and 100 for the
 * operation (cost model version 5: what they were measured to cost), plus its 10 instructions
 * (sluice_alloc's 1; sluice_handle's 4 for the table operation and its operands, 5 for the
 * reply), the same in each of the three. The handler's region is charged on entry, the entries
 * just before the operation runs, so a call stopped there has used the same figure.
 */
const TABLE_OP_FUEL = 40_000 * TABLE_ENTRY_COST + TABLE_OP_COST + 10;

describe("a hostile guest is stopped by its fuel budget, and the next benign call succeeds", () => {
  const hostile: [name: string, fuel: number, why: string][] = [
    ["fuel-straight-line", 100, "a stretch of straight-line code is charged before it runs"],
    ["fuel-deep-recursion", 10_000, "every function entry is charged and checked"],
    ["fuel-mutual-recursion", 10_000, "a cycle of calls among functions no export or table reaches still pays at every level"],
    ["fuel-call-fanout", 1_000_000, "call sites add up their callees' costs only to a cap, so 2^64 loop-free calls stop too"],
    ["fuel-arm-fanout", 1_000_000, "every function entry checks, so calls in separately charged arms stop too"],
    ["fuel-table-entry", 100, "a function a table holds is charged on entry, not at direct call sites only"],
    ["fuel-ref-func-entry", 100, "a function a ref.func names is charged on entry, wherever it ends up"],
    ["fuel-fill-memory", 1_000_000, "memory.fill is charged by its size"],
    ["fuel-grow-loop", 1_000_000, "memory.grow is charged per page"],
    ["fuel-alloc-loop", 1_000_000, "sluice_alloc is metered like every function"],
    ["start-loop", 1_000_000, "the start function is metered, and runs with the call's budget"],
    ["loop", 1_000_000, "every loop header is charged and checked"],
    ["fuel-name-clash", 1_000_000, "the meter's names never collide with the guest's own"],
    ["fuel-table-fill", 10_000, "table.fill is charged by its entry count"],
    ["fuel-table-copy", 10_000, "table.copy is charged by its entry count"],
    ["fuel-table-init", 10_000, "table.init is charged by its entry count"],
    ["fuel-table-operand-loop", 1_000_000, "a loop inside a table operation's operand is metered"],
  ];
  for (const [name, fuel, why] of hostile) {
    it(`${name} fails with GUEST_FUEL_EXHAUSTED (${why}), without costing its worker`, async () => {
      // The time limit is far off (the wall-clock backstop has its own tests): what stops each is fuel, whatever the load.
      const mod = await sandbox.load(fixture(name), { limits: { fuel, timeoutMs: 10_000 } });
      const r = await expectEndsByFuel(sandbox, mod, fuel);
      expect(r.fuel).toBeGreaterThan(fuel);
      await benignCallSucceeds(sandbox);
    });
  }

  it("memory.grow in a loop is stopped by fuel before memory runs out: 1,000,000 units buy 163 pages", async () => {
    // 163 grows of a memory up to 16 MB take tens of milliseconds on a loaded machine: the
    // time limit is set far off, so what stops the loop is fuel, whatever the load.
    const mod = await sandbox.load(fixture("fuel-grow-loop"), { limits: { fuel: 1_000_000, timeoutMs: 10_000 } });
    const r = await sandbox.invoke(mod, request());
    expect(!r.ok && r.error.code).toBe("GUEST_FUEL_EXHAUSTED");
    // An iteration costs 6,100 units (4 instructions, 2,000 for the grow and 4,096 for the page):
    // 163 grows succeed, the 164th is charged and stopped before it runs. 1 initial page + 163.
    expect(r.memoryBytes).toBe(164 * 65_536);
  });

  it("table.fill, table.copy and table.init of 40,000 entries each cost 40 units an entry and 100 more than their instructions", async () => {
    for (const name of ["fuel-table-fill", "fuel-table-copy", "fuel-table-init"]) {
      const mod = await sandbox.load(fixture(name), { limits: { fuel: 10_000 } });
      const r = await sandbox.invoke(mod, request());
      expect(!r.ok && r.error.code).toBe("GUEST_FUEL_EXHAUSTED");
      expect({ name, fuel: r.fuel }).toEqual({ name, fuel: TABLE_OP_FUEL });
    }
    await benignCallSucceeds(sandbox);
  });

  it("the same table operations within the budget run: the whole table is filled and copied", async () => {
    for (const name of ["fuel-table-fill", "fuel-table-copy"]) {
      const mod = await sandbox.load(fixture(name), { limits: { fuel: 2_000_000 } });
      const r = await sandbox.invoke(mod, request());
      expect({ name, ok: r.ok, fuel: r.fuel }).toEqual({ name, ok: true, fuel: TABLE_OP_FUEL });
    }
  });

  it("a guest cannot import the fuel counter: the reserved module name is outside the allow-list", async () => {
    const err = await sandbox.load(fixture("fuel-import-counter")).then(() => undefined, (e: unknown) => e);
    expect(isSluiceError(err) && err.code).toBe("MODULE_FORBIDDEN_IMPORT");
    expect(isSluiceError(err) && err.details).toEqual({ import: "sluice_fuel.remaining" });
    await benignCallSucceeds(sandbox);
  });
});

describe("fuel exhaustion keeps the worker", () => {
  it("50 runaway calls in a row each stop at their budget; no worker is terminated or replaced", async () => {
    const loop = await sandbox.load(fixture("loop"), { limits: { fuel: 100_000 } });
    const threads = sandbox.threadCount;
    for (let i = 0; i < 50; i++) {
      const r = await sandbox.invoke(loop, request());
      expect(!r.ok && r.error.code).toBe("GUEST_FUEL_EXHAUSTED");
      expect(sandbox.threadCount).toBe(threads);
    }
    expect(sandbox.restartLimited(loop)).toBe(false);
    await benignCallSucceeds(sandbox);
  });
});

describe("fuel is deterministic", () => {
  let plugin: LoadedModule;
  const bytes = encode(request("tool.before", { tool_id: "t-orders", name: "search_orders", revision: 3, schema: { type: "object" }, arguments: { q: "late orders", limit: 500 }, call_id: "call-1" }, { max_limit: 100 }));
  beforeAll(async () => { plugin = await sandbox.load(pluginWasm("order-search-limit")); });

  it("a benign core guest is charged its instruction count, the same on every call", async () => {
    const mod = await sandbox.load(fixture("continue"));
    const runs = await Promise.all(Array.from({ length: 20 }, () => sandbox.invoke(mod, request())));
    expect(runs.map((r) => r.fuel)).toEqual(Array(20).fill(CONTINUE_FUEL));
  });

  it("one call run 1,000 times alone and 1,000 times under load uses one fuel figure", async () => {
    const alone: number[] = [];
    for (let i = 0; i < 1_000; i++) alone.push((await sandbox.invokeBytes(plugin, bytes)).fuel);
    // Load: a thread that keeps a core busy, and the calls 32 at a time on both workers.
    const burner = new Worker("const end = Date.now() + 60_000; while (Date.now() < end) {}", { eval: true });
    try {
      const loaded: number[] = [];
      for (let i = 0; i < 1_000; i += 32) {
        const batch = await Promise.all(Array.from({ length: Math.min(32, 1_000 - i) }, () => sandbox.invokeBytes(plugin, bytes)));
        loaded.push(...batch.map((r) => r.fuel));
      }
      expect(loaded).toHaveLength(1_000);
      expect(new Set([...alone, ...loaded])).toEqual(new Set([alone[0]]));
      expect(alone[0]).toBeGreaterThan(1_000);
    } finally {
      await burner.terminate();
    }
  });
});

describe("limits.fuel", () => {
  it("has a default and is capped by the host maximum", () => {
    expect(resolveLimits({}).fuel).toBe(DEFAULT_LIMITS.fuel);
    expect(resolveLimits({ fuel: 1e15 }).fuel).toBe(HOST_MAX_LIMITS.fuel);
    expect(() => resolveLimits({ fuel: 0 })).toThrow(/limit fuel must be a positive number/);
  });
});
