// `sluice test` shows each sample's fuel, and warns when a sample uses more than half the budget.
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../../host/sandbox/index.js";
import { loadPlugin, runPluginSamples } from "../../host/toolchain/samples.js";
import { pluginWasm, repoRoot } from "../helpers/fixtures.js";

const dir = path.join(repoRoot, "plugins/order-search-limit");
let sandbox: Sandbox;
beforeAll(() => { sandbox = createSandbox({ workers: 1 }); });
afterAll(() => sandbox.close());

describe("samples report their fuel", () => {
  it("every sample carries the fuel its hook used and the budget; none warns under the default budget", async () => {
    const results = await runPluginSamples(sandbox, await loadPlugin(sandbox, dir, pluginWasm("order-search-limit")));
    for (const r of results) {
      expect(r.pass, r.name).toBe(true);
      expect(r.fuel, r.name).toBeGreaterThan(0);
      expect(r.fuelLimit).toBe(50_000_000);
      expect(r.warning, r.name).toBeUndefined();
    }
  });

  it("a sample that uses more than half the budget passes with a warning; one that uses all of it fails with GUEST_FUEL_EXHAUSTED", async () => {
    const [first] = await runPluginSamples(sandbox, await loadPlugin(sandbox, dir, pluginWasm("order-search-limit")));
    const tight = await runPluginSamples(sandbox, await loadPlugin(sandbox, dir, pluginWasm("order-search-limit"), { limits: { fuel: Math.ceil(first!.fuel! * 1.5) } }));
    expect(tight[0]!.pass).toBe(true);
    expect(tight[0]!.fuel).toBe(first!.fuel!);
    expect(tight[0]!.warning).toBe(`uses ${first!.fuel!} fuel, more than half its budget of ${Math.ceil(first!.fuel! * 1.5)} per call (hook.yaml limits.fuel): a larger input may fail with GUEST_FUEL_EXHAUSTED`);
    const starved = await runPluginSamples(sandbox, await loadPlugin(sandbox, dir, pluginWasm("order-search-limit"), { limits: { fuel: first!.fuel! - 1 } }));
    expect(starved[0]!.pass).toBe(false);
    expect(starved[0]!.mismatches.join("\n")).toMatch(/GUEST_FUEL_EXHAUSTED/);
  });
});
