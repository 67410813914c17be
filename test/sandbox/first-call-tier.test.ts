// A freshly uploaded guest's first call runs the same code as its later calls: a runaway at
// the default limits ends where its fuel does, with its worker kept, on the very first call
// of the module in this process. By default V8 runs a new module in its baseline code
// (Liftoff) until a background tier-up, and a call never leaves the code it started in: the
// `loop` fixture's first call there costs about 5 times a later one and most end
// GUEST_TIMEOUT, the worker terminated. Vitest runs each file in its own process, and
// nothing here runs a fixture before the call under test; each is loaded for the first time.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, DEFAULT_LIMITS, type Sandbox } from "../../host/sandbox/index.js";
import { warmLoader } from "../../host/sandbox/main/load-module.js";
import { fixture } from "../helpers/fixtures.js";
import { expectEndsByFuel } from "../helpers/fuel-ending.js";

/** Runaways of different kinds of work, none of which any other test in this file has run. */
const RUNAWAYS = ["loop", "fuel-price-divide", "fuel-price-call-indirect", "fuel-price-return-call", "fuel-price-memory-fill-one", "fuel-price-memory-copy", "fuel-price-table-fill-one", "fuel-price-cache-miss", "fuel-price-store-miss"];

let sandbox: Sandbox;
let releaseLoader: () => void;
// As `sluice serve` starts (registry.ts): the loader has metered a benign guest, so binaryen
// (the meter) is started and its own code compiled; none of the guests below has been.
// Then until the process is quiet: V8 optimises binaryen's own code on background threads
// for about a second after its first use, and a first call made meanwhile waits for a core
// (abi/README.md §11 says so; not what this file tests).
beforeAll(async () => {
  releaseLoader = await warmLoader();
  sandbox = createSandbox({ workers: 1 });
  await sandbox.ready();
  await quiet();
}, 60_000);

/** Resolves once the process used under a quarter of a core over 250 ms, twice in a row. */
async function quiet(): Promise<void> {
  let calm = 0;
  for (let last = process.cpuUsage(); calm < 2;) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const used = process.cpuUsage(last);
    last = process.cpuUsage();
    calm = (used.user + used.system) / 1000 < 250 / 4 ? calm + 1 : 0;
  }
}
afterAll(async () => { releaseLoader(); await sandbox.close(); });

describe("the first call of a freshly uploaded guest, at the default limits", () => {
  for (const name of RUNAWAYS) {
    it(`${name}: its first call in this process ends GUEST_FUEL_EXHAUSTED and the worker is kept`, { timeout: 60_000 }, async () => {
      const mod = await sandbox.load(fixture(name));
      expect(mod.limits.timeoutMs).toBe(DEFAULT_LIMITS.timeoutMs);
      await expectEndsByFuel(sandbox, mod, DEFAULT_LIMITS.fuel);
    });
  }
});
