// A load is priced by the size of the memory it reads: dependent loads from random
// addresses of a memory past the caches' and the TLB's reach cost about 200 times a plain
// instruction, so the price follows the memory's size (cost-model.ts, LOAD_PRICES), set when
// the instance starts and at each grow. Before, such a guest spent the default budget in
// 0.5-3 s and the time limit stopped it, terminating its worker.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import wabtInit from "wabt";
import { createSandbox, type Sandbox } from "../../host/sandbox/index.js";
import { loadPrice, LOAD_PRICES } from "../../host/sandbox/loader/fuel/cost-model.js";
import { meter } from "../../host/sandbox/loader/fuel/meter.js";
import { fixture } from "../helpers/fixtures.js";
import { request } from "../helpers/requests.js";

const MiB = 1024 * 1024;
const PAGE = 65_536;

/** Meters `wat` and instantiates it; each export then answers the fuel one call of it used. */
async function metered(wat: string): Promise<Record<string, () => number>> {
  const wabt = await wabtInit();
  const bytes = new Uint8Array(wabt.parseWat("t.wat", wat, { threads: true }).toBinary({}).buffer);
  const remaining = new WebAssembly.Global({ value: "i64", mutable: true }, 10n ** 12n);
  const instance = new WebAssembly.Instance(new WebAssembly.Module(meter(bytes) as Uint8Array<ArrayBuffer>), { sluice_fuel: { remaining } });
  return Object.fromEntries(Object.entries(instance.exports).filter(([, f]) => typeof f === "function").map(([name, f]) => [name, () => {
    const before = remaining.value;
    (f as () => unknown)();
    return Number(before - remaining.value);
  }]));
}

describe("the price of a load follows the memory's size", () => {
  it("prices grow with the memory, from nothing within 256 KiB to the most past 32 MiB", () => {
    expect(loadPrice(PAGE)).toBe(0);
    expect(loadPrice(256 * 1024)).toBe(0);
    const prices = LOAD_PRICES.map(([, p]) => p);
    expect([...prices].sort((a, b) => a - b)).toEqual(prices);
    expect(loadPrice(16 * MiB)).toBeGreaterThanOrEqual(100);
  });

  for (const pages of [1, 4, 5, 64, 65, 129, 256, 257, 4096]) {
    it(`a load from a memory of ${pages} pages costs its 3 instructions and ${loadPrice(pages * PAGE)}; a store costs its instructions alone`, async () => {
      const run = await metered(`(module (memory ${pages})
        (func (export "load") (drop (i32.load (i32.const 0))))
        (func (export "store") (i32.store (i32.const 0) (i32.const 1))))`);
      expect(run.load!()).toBe(3 + loadPrice(pages * PAGE));
      expect(run.store!()).toBe(3);
    });
  }

  it("a grow sets the price of the memory it leaves; a grow past the maximum changes nothing", async () => {
    const run = await metered(`(module (memory 1 300)
      (func (export "load") (drop (i32.load (i32.const 0))))
      (func (export "grow") (drop (memory.grow (i32.const 255))))
      (func (export "growTooFar") (drop (memory.grow (i32.const 1000)))))`);
    expect(run.load!()).toBe(3);
    run.grow!();
    expect(run.load!()).toBe(3 + loadPrice(16 * MiB));
    run.growTooFar!();
    expect(run.load!()).toBe(3 + loadPrice(16 * MiB));
  });

  it("each load of a region is paid at the price, SIMD and atomic loads too", async () => {
    const run = await metered(`(module (memory 256 256 shared)
      (func (export "loads") (drop (i32.add (i32.load (i32.const 0)) (i32.load offset=4 (i32.const 0)))))
      (func (export "simd") (drop (v128.load (i32.const 0))))
      (func (export "atomic") (drop (i32.atomic.rmw.add (i32.const 0) (i32.const 1)))))`);
    const price = loadPrice(16 * MiB);
    expect(run.loads!()).toBe(6 + 2 * price);
    expect(run.simd!()).toBe(3 + price);
    expect(run.atomic!()).toBe(4 + price);
  });
});

describe("memory-bound work is stopped by fuel at the default limits, never by the clock", () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = createSandbox({ workers: 1 });
    await sandbox.ready();
    // A warm worker: right after the host's first upload, V8 compiles in the background for about a second.
    await sandbox.invoke(await sandbox.load(fixture("continue")), request());
  });
  afterAll(() => sandbox.close());

  // Default limits: 50 million units, 100 ms, 16 MiB. The time limit would terminate the worker.
  for (const name of ["fuel-price-cache-miss", "fuel-price-cache-miss-grown"]) {
    it(`${name} ends GUEST_FUEL_EXHAUSTED, not GUEST_TIMEOUT, and its worker serves the next call`, async () => {
      const mod = await sandbox.load(fixture(name));
      const threads = sandbox.threadCount;
      const r = await sandbox.invoke(mod, request());
      expect(!r.ok && r.error.code).toBe("GUEST_FUEL_EXHAUSTED");
      const next = await sandbox.invoke(await sandbox.load(fixture("continue")), request());
      expect(next.ok && next.outcome.kind).toBe("continue");
      expect(sandbox.threadCount).toBe(threads);
    });
  }

  it("the same call uses the same fuel every time", async () => {
    const mod = await sandbox.load(fixture("fuel-price-cache-miss"), { limits: { fuel: 1_000_000 } });
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push((await sandbox.invoke(mod, request())).fuel);
    expect(new Set(runs).size).toBe(1);
  });
});
