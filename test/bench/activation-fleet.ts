/**
 * Scenario 14: activation to every host. Three `sluice serve` processes on one
 * database; a release is published through host 0 (not activated), then activated through
 * it, and the time runs from sending the activation until all three hosts' GET
 * /api/v1/status report the new revision as the one they serve. Median and max over
 * `activations` activations, per engine; beside it, from the activation's `activated_at`
 * to the last host's `serving_since` (the switch itself, without the polling's lag).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { startFleet, switchDelays, untilAllServe, type FleetOptions } from "../helpers/multihost.js";
import { stats } from "./measure.js";
import { repoRoot } from "./systems.js";
import type { ScenarioResult, Target } from "./scenarios.js";

export interface FleetEngine {
  name: string;
  /** Runs `fn` with the fleet options of this engine (a database URL, or none for one shared SQLite folder), then cleans up. */
  with: <T>(fn: (options: FleetOptions) => Promise<T>) => Promise<T>;
}

/** Per activation: until all three report it (observed through their status), and until the last one switched (its serving_since). */
async function activationTimes(options: FleetOptions, activations: number): Promise<{ observed: number[]; switched: number[] }> {
  const fleet = await startFleet(3, options);
  try {
    const [a] = fleet.hosts;
    const wasm = readFileSync(join(repoRoot(), "build/plugins/order-search-limit.wasm"));
    const manifest = readFileSync(join(repoRoot(), "plugins/order-search-limit/hook.yaml"), "utf8");
    await a!.api("POST", "/api/v1/plugins", { manifest, wasm_base64: wasm.toString("base64") });
    const binding = { hook_ref: "order-search-limit@1.0.0", point: "tool.before" };
    await a!.api("POST", "/api/v1/bindings", { id: "orders-limit", ...binding, config: { max_limit: 1 } });
    const observed: number[] = [];
    const switched: number[] = [];
    // One untimed activation first: every host then holds the plugin compiled, and each timed
    // activation is a new revision of the same plugin with another config.
    for (let i = 0; i <= activations; i++) {
      await a!.api("PUT", "/api/v1/bindings/orders-limit", { ...binding, config: { max_limit: 10 + i } });
      const { release } = await a!.api<{ release: { revision: number } }>("POST", "/api/v1/releases", {});
      const sent = performance.now();
      await a!.api("POST", `/api/v1/releases/${release.revision}/activate`, {});
      const ms = await untilAllServe(fleet.hosts, release.revision, sent, 30_000);
      const last = Math.max(...(await switchDelays(fleet.hosts, release.revision)));
      if (i > 0) { observed.push(ms); switched.push(last); }
    }
    return { observed, switched };
  } finally {
    await fleet.stop();
  }
}

export async function activationToEveryHost(id: number, activations: number, engines: readonly FleetEngine[]): Promise<ScenarioResult> {
  const values: Record<string, number | string> = { hosts: 3, activations };
  const targets: Target[] = [];
  for (const engine of engines) {
    const { observed: times, switched } = await engine.with((options) => activationTimes(options, activations));
    values[`${engine.name}MedianMs`] = Math.round(stats(times).p50);
    values[`${engine.name}MaxMs`] = Math.round(Math.max(...times));
    values[`${engine.name}SwitchMedianMs`] = Math.round(stats(switched).p50);
    values[`${engine.name}SwitchMaxMs`] = Math.round(Math.max(...switched));
    const max = Math.max(...times);
    targets.push({ name: `${engine.name}: activation until all three hosts serve it (max of ${activations})`, measured: Math.round(max), limit: 1000, op: "<=", unit: "ms", met: max <= 1000 });
  }
  return { id, title: `activation to every host (3 sluice serve processes, ${activations} activations; ${engines.map((e) => e.name).join(", ")})`, values, targets };
}
