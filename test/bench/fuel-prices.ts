/**
 * Scenario 18's guests: the costliest unit of each kind of work a guest can buy
 * with fuel, each a tiny WAT fixture that repeats it forever. Each must end where its fuel
 * does, within twice the documented time of a default budget (abi/README.md §11), so the time
 * limit, which terminates the worker, is never what stops it. test/sandbox/fuel-prices.test.ts
 * runs the same list for the outcome alone.
 */
import { createSandbox } from "../../host/sandbox/index.js";
import { request } from "../helpers/requests.js";
import { stats, type Stats } from "./measure.js";

/** What abi/README.md §11 and SECURITY.md say a default budget (50 million units) costs: one core's time. */
export const DOCUMENTED_MS_PER_DEFAULT_BUDGET = 60;

export interface PriceFixture { name: string; code: "GUEST_FUEL_EXHAUSTED" | "GUEST_ABORTED" | "GUEST_TRAP"; what: string }

export const FUEL_PRICE_FIXTURES: readonly PriceFixture[] = [
  { name: "loop", code: "GUEST_FUEL_EXHAUSTED", what: "a plain loop, the reference" },
  { name: "fuel-price-throw-catch", code: "GUEST_FUEL_EXHAUSTED", what: "throw and catch" },
  { name: "fuel-price-rethrow", code: "GUEST_FUEL_EXHAUSTED", what: "catch and rethrow" },
  { name: "fuel-price-grow-zero", code: "GUEST_FUEL_EXHAUSTED", what: "memory.grow of 0 pages" },
  { name: "fuel-price-grow-fail", code: "GUEST_FUEL_EXHAUSTED", what: "memory.grow past the maximum" },
  { name: "fuel-price-table-fill-one", code: "GUEST_FUEL_EXHAUSTED", what: "table.fill of one entry" },
  { name: "fuel-price-table-fill-big", code: "GUEST_FUEL_EXHAUSTED", what: "table.fill of 50,000 function references" },
  { name: "fuel-price-table-copy-one", code: "GUEST_FUEL_EXHAUSTED", what: "table.copy of one entry" },
  { name: "fuel-price-table-init-one", code: "GUEST_FUEL_EXHAUSTED", what: "table.init of one entry" },
  { name: "fuel-price-table-grow-zero", code: "GUEST_FUEL_EXHAUSTED", what: "table.grow by 0 entries" },
  { name: "fuel-price-table-grow-one", code: "GUEST_FUEL_EXHAUSTED", what: "table.grow by 1 entry to 50,000" },
  { name: "fuel-price-call-indirect", code: "GUEST_FUEL_EXHAUSTED", what: "call_indirect" },
  { name: "fuel-price-return-call", code: "GUEST_FUEL_EXHAUSTED", what: "return_call" },
  { name: "fuel-price-memory-fill-one", code: "GUEST_FUEL_EXHAUSTED", what: "memory.fill of one byte" },
  { name: "fuel-price-memory-copy", code: "GUEST_FUEL_EXHAUSTED", what: "memory.copy of 8 MiB" },
  { name: "fuel-price-divide", code: "GUEST_FUEL_EXHAUSTED", what: "dependent 64-bit divisions" },
  { name: "fuel-price-simd", code: "GUEST_FUEL_EXHAUSTED", what: "dependent SIMD square roots and divisions" },
  { name: "fuel-price-cache-miss", code: "GUEST_FUEL_EXHAUSTED", what: "dependent loads from random addresses of 16 MiB" },
  { name: "fuel-price-cache-miss-grown", code: "GUEST_FUEL_EXHAUSTED", what: "the same after growing from 64 KiB to 16 MiB" },
  { name: "fuel-price-store-miss", code: "GUEST_FUEL_EXHAUSTED", what: "stores to random addresses of 16 MiB" },
  { name: "fuel-price-log", code: "GUEST_FUEL_EXHAUSTED", what: "log of 1 KiB" },
  { name: "fuel-price-kv-get-large", code: "GUEST_FUEL_EXHAUSTED", what: "kv_get of a 64 KiB value" },
  { name: "fuel-price-kv-set-large", code: "GUEST_FUEL_EXHAUSTED", what: "kv_set of a 64 KiB value" },
  { name: "fuel-price-kv-get-missing", code: "GUEST_FUEL_EXHAUSTED", what: "kv_get of an absent 256-byte key" },
  { name: "fuel-price-kv-delete", code: "GUEST_FUEL_EXHAUSTED", what: "kv_delete of an absent 256-byte key" },
  { name: "fuel-price-abort-caught", code: "GUEST_ABORTED", what: "abort, caught by catch_all" },
  { name: "fuel-price-kv-out-of-bounds", code: "GUEST_TRAP", what: "kv_get out of bounds, caught by catch_all" },
];

/**
 * `asExpected`: every run ended in the fixture's own code and no worker was replaced, and so
 * did the first call on a fresh worker at the default limits (`fresh`). `firstRunMs` is the
 * fixture's first run in this process: the process's first calls are slow for V8's own
 * reasons (tiering, RESULTS.md), reported here, not a target.
 */
export interface PriceRun { name: string; code: string; fuel: number; ms: Stats; firstRunMs: number; fresh: FreshCall; asExpected: boolean }

/** A fixture's first call on a fresh one-worker sandbox, at the default limits (time limit included). */
export interface FreshCall { code: string; ms: number; workerKept: boolean }

/**
 * Runs each fixture `runs` times at the default budget on one worker, interleaved (so the
 * machine's load falls on all alike), with the time limit far off so the time is measured,
 * not cut: the guest's own time as the worker measured it.
 */
export async function runPriceFixtures(runs: number, fixtureBytes: (name: string) => Uint8Array): Promise<PriceRun[]> {
  const sandbox = createSandbox({ workers: 1 });
  try {
    await sandbox.ready();
    const mods = [];
    for (const f of FUEL_PRICE_FIXTURES) {
      const kv = f.name.includes("kv");
      mods.push({ f, kv, mod: await sandbox.load(fixtureBytes(f.name), { limits: { timeoutMs: 10_000 }, ...(kv ? { capabilities: ["kv" as const] } : {}) }), times: [] as number[], code: "", fuel: 0, asExpected: true });
    }
    const threads = sandbox.threadCount;
    for (let i = 0; i < runs; i++) {
      for (const m of mods) {
        const r = await sandbox.invoke(m.mod, request(), m.kv ? { kvScope: { spaceId: "bench", ownerId: "fuel-prices" } } : {});
        m.times.push(r.durationMs);
        m.code = r.ok ? "OK" : r.error.code;
        m.asExpected &&= m.code === m.f.code && sandbox.threadCount === threads;
        m.fuel = r.fuel;
      }
    }
    // After the runs above, so the process's own first-call slowness (V8's tiering) is behind
    // it and what a fresh worker adds is its own.
    const out: PriceRun[] = [];
    for (const m of mods) {
      const fresh = await firstCallOnFreshWorker(m.f, fixtureBytes);
      out.push({ name: m.f.name, code: m.code, fuel: m.fuel, ms: stats(m.times), firstRunMs: m.times[0]!, fresh, asExpected: m.asExpected && fresh.code === m.f.code && fresh.workerKept });
    }
    return out;
  } finally {
    await sandbox.close();
  }
}

/**
 * Its first call on a worker nothing ran on but the warm-up, at the default limits: the worker's
 * pool holds no memory of its shape, and a time limit past would replace the worker (the
 * first touches of a fresh 16 MiB memory can take that long, on fuel-price-store-miss).
 */
async function firstCallOnFreshWorker(f: PriceFixture, fixtureBytes: (name: string) => Uint8Array): Promise<FreshCall> {
  const sandbox = createSandbox({ workers: 1 });
  try {
    await sandbox.ready();
    const kv = f.name.includes("kv");
    const mod = await sandbox.load(fixtureBytes(f.name), kv ? { capabilities: ["kv" as const] } : {});
    const threads = sandbox.threadCount;
    const r = await sandbox.invoke(mod, request(), kv ? { kvScope: { spaceId: "bench-fresh", ownerId: "fuel-prices" } } : {});
    return { code: r.ok ? "OK" : r.error.code, ms: r.durationMs, workerKept: sandbox.threadCount === threads };
  } finally {
    await sandbox.close();
  }
}
