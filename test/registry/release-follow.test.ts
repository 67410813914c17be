/**
 * Release distribution within one process: two registries on one data directory stand for
 * two hosts on one database. An activation or rollback through one reaches the other within
 * a second; a release the other cannot load leaves it on its previous revision, saying why.
 * (test/multihost/ runs the same through separate `sluice serve` processes.)
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { Registry, type RegistryOptions } from "../../host/registry/registry.js";
import { releaseFeed } from "../../host/registry/release-feed.js";
import type { ReleaseSyncReport } from "../../host/registry/release-watcher.js";
import type { PrefetchReport } from "../../host/registry/plugin-prefetch.js";
import { pluginWasm } from "../helpers/fixtures.js";
import { fixture, manifestYaml, tempDir, toolCall } from "./fixtures.js";
import { until } from "../helpers/until.js";

const LIMIT_MANIFEST = readFileSync(new URL("../../plugins/order-search-limit/hook.yaml", import.meta.url), "utf8");
const LIMIT_WASM = pluginWasm("order-search-limit");

const open: Registry[] = [];
async function openRegistry(dataDir: string, options: Partial<RegistryOptions> = {}): Promise<Registry> {
  const r = await Registry.open({ dataDir, ...options, hostOptions: { workers: 1 } });
  open.push(r);
  return r;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});

/** Milliseconds until `r` serves `revision`; fails past `withinMs`. */
async function servedWithin(r: Registry, revision: number, withinMs: number): Promise<number> {
  const started = performance.now();
  if (!(await until(async () => (await r.releaseStatus()).serving_revision === revision, withinMs))) {
    throw new Error(`still serving another revision than ${revision} after ${Math.round(performance.now() - started)} ms: ${JSON.stringify(await r.releaseStatus())}`);
  }
  return performance.now() - started;
}

async function clampedLimit(r: Registry): Promise<unknown> {
  let received: Record<string, unknown> | undefined;
  await r.host.tool({ spaceId: "s1" }, toolCall(500), async (args) => { received = args; return { rows: [] }; });
  return received?.limit;
}

describe("release distribution between hosts on one database", () => {
  it("serves an activation and a rollback made through another host within 1 s, hooks and all", async () => {
    const dataDir = tempDir();
    const a = await openRegistry(dataDir);
    const b = await openRegistry(dataDir);
    await a.upload({ manifest: LIMIT_MANIFEST, wasm: LIMIT_WASM });
    await a.createBinding({ id: "orders-limit", hook_ref: "order-search-limit@1.0.0", point: "tool.before", config: { max_limit: 100 } });
    await a.publish({ activate: true });
    expect(await servedWithin(b, 1, 1000)).toBeLessThan(1000);
    expect(await b.releaseStatus()).toEqual({ active_revision: 1, serving_revision: 1, serving_since: expect.any(String), loading_revision: null, error: null });
    // It switched at most a second after the activation was recorded.
    const [activation] = await a.listActivations();
    expect(Date.parse((await b.releaseStatus()).serving_since!) - Date.parse(activation!.activated_at)).toBeLessThan(1000);
    expect(await clampedLimit(b)).toBe(100);

    await a.updateBinding("orders-limit", { hook_ref: "order-search-limit@1.0.0", point: "tool.before", config: { max_limit: 50 } });
    await a.publish({ activate: true });
    await servedWithin(b, 2, 1000);
    expect(await clampedLimit(b)).toBe(50);

    await a.rollback();
    await servedWithin(b, 1, 1000);
    expect(await clampedLimit(b)).toBe(100);
  });

  it("keeps serving the previous revision when it cannot load the active one, and reports the revision and the code", async () => {
    const dataDir = tempDir();
    const reports: (ReleaseSyncReport | PrefetchReport)[] = [];
    const a = await openRegistry(dataDir);
    // This host accepts modules of at most 4 KiB: the 175-byte guest loads, the 19 KB plugin does not.
    const small = await openRegistry(dataDir, { maxModuleBytes: 4096, onReleaseSync: (r) => reports.push(r) });
    await a.upload({ manifest: manifestYaml(), wasm: fixture("continue") });
    await a.createBinding({ id: "clamp", hook_ref: "clamp@1.0.0", point: "tool.before", config: { max_limit: 5 } });
    await a.publish({ activate: true });
    await servedWithin(small, 1, 1000);

    await a.upload({ manifest: LIMIT_MANIFEST, wasm: LIMIT_WASM });
    await a.createBinding({ id: "orders-limit", hook_ref: "order-search-limit@1.0.0", point: "tool.before", config: { max_limit: 100 } });
    await a.publish({ activate: true });
    await expect.poll(async () => (await small.releaseStatus()).error, { timeout: 1000, interval: 10 }).not.toBeNull();
    expect(await small.releaseStatus()).toMatchObject({ active_revision: 2, serving_revision: 1, loading_revision: null, error: { revision: 2, code: "MODULE_TOO_LARGE" } });
    expect(small.host.release.revision).toBe(1);
    // The previous release still runs: the continue guest leaves the limit as it is.
    expect(await clampedLimit(small)).toBe(500);
    expect(reports).toContainEqual({ kind: "load_failed", serving: 1, failure: expect.objectContaining({ revision: 2, code: "MODULE_TOO_LARGE" }) });
    // The prefetch looks for new plugin versions every 500 ms: it may report after the release watcher did.
    await expect.poll(() => reports, { timeout: 2000, interval: 20 }).toContainEqual({ kind: "prefetch_failed", plugin: "order-search-limit@1.0.0", code: "MODULE_TOO_LARGE" });

    // A rollback to what it can load clears the failure.
    await a.rollback();
    await expect.poll(() => small.releaseStatus(), { timeout: 1000, interval: 10 }).toMatchObject({ active_revision: 1, serving_revision: 1, loading_revision: null, error: null });
  });

  it("a host that starts after an activation serves it, and one opened with followReleases: false does not follow", async () => {
    const dataDir = tempDir();
    const a = await openRegistry(dataDir);
    const still = await openRegistry(dataDir, { followReleases: false });
    await a.upload({ manifest: manifestYaml(), wasm: fixture("continue") });
    await a.createBinding({ id: "clamp", hook_ref: "clamp@1.0.0", point: "tool.before", config: { max_limit: 5 } });
    await a.publish({ activate: true });
    const late = await openRegistry(dataDir);
    expect((await late.releaseStatus()).serving_revision).toBe(1);
    // Not following can only be seen over time: six of the SQLite feed's 100 ms checks.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await still.releaseStatus()).toMatchObject({ active_revision: 1, serving_revision: 0 });
  });

  it("does not report a version uploaded through this very host as another host's", async () => {
    const dataDir = tempDir();
    const reports: (ReleaseSyncReport | PrefetchReport)[] = [];
    const a = await openRegistry(dataDir, { onReleaseSync: (r) => reports.push(r) });
    const other = await openRegistry(dataDir);
    await a.upload({ manifest: LIMIT_MANIFEST, wasm: LIMIT_WASM });
    await other.upload({ manifest: LIMIT_MANIFEST.replace(/^version: .*$/m, "version: 1.0.1"), wasm: LIMIT_WASM });
    await expect.poll(() => reports, { timeout: 5000, interval: 20 }).toContainEqual({ kind: "prefetched", plugin: "order-search-limit@1.0.1", loadMs: expect.any(Number) });
    expect(reports.filter((r) => r.kind === "prefetched").map((r) => (r as { plugin: string }).plugin)).toEqual(["order-search-limit@1.0.1"]);
  });

  it("compiles a plugin version another host stored before any release uses it", async () => {
    const dataDir = tempDir();
    const reports: (ReleaseSyncReport | PrefetchReport)[] = [];
    const a = await openRegistry(dataDir);
    await openRegistry(dataDir, { onReleaseSync: (r) => reports.push(r) });
    await a.upload({ manifest: LIMIT_MANIFEST, wasm: LIMIT_WASM });
    await expect.poll(() => reports, { timeout: 5000, interval: 20 }).toContainEqual({ kind: "prefetched", plugin: "order-search-limit@1.0.0", loadMs: expect.any(Number) });
  });

  it("a notification wakes the check at once, long before the periodic one", async () => {
    const dataDir = tempDir();
    const a = await openRegistry(dataDir);
    let notify: () => void = () => { throw new Error("not listening"); };
    let stopped = false;
    const b = await openRegistry(dataDir, {
      followReleases: {
        feed: releaseFeed({
          readActive: () => a.activeRevision(), intervalMs: 60_000,
          notifications: async (onNotify) => { notify = onNotify; return async () => { stopped = true; }; },
        }),
      },
    });
    await a.upload({ manifest: manifestYaml(), wasm: fixture("continue") });
    await a.createBinding({ id: "clamp", hook_ref: "clamp@1.0.0", point: "tool.before", config: { max_limit: 5 } });
    await a.publish({ activate: true });
    // A window in which nothing may wake b: its periodic check is a minute away.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await b.releaseStatus()).serving_revision).toBe(0);
    notify();
    await servedWithin(b, 1, 1000);
    await b.close();
    expect(stopped).toBe(true);
  });
});
