/**
 * Several hosts on one database: three `sluice serve` processes on one database behave as one.
 * A release activated (or rolled back) through one host is served by the two others within
 * a second, as each one's GET /api/v1/status reports; a host that cannot load the new
 * release keeps serving the previous one and reports why. Needs `npm run build`.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { pluginWasm } from "../helpers/fixtures.js";
import { startFleet, switchDelays, untilAllServe, type Fleet, type FleetOptions, type HostProcess } from "../helpers/multihost.js";
import { fixture, manifestYaml } from "../registry/fixtures.js";
import { testDatabaseUrl } from "../helpers/postgres.js";

const LIMIT_MANIFEST = readFileSync(new URL("../../plugins/order-search-limit/hook.yaml", import.meta.url), "utf8");
const upload = (manifest: string, wasm: Uint8Array) => ({ manifest, wasm_base64: Buffer.from(wasm).toString("base64") });

const fleets: Fleet[] = [];
afterEach(async () => { await Promise.all(fleets.splice(0).map((f) => f.stop())); });

async function fleet(...args: Parameters<typeof startFleet>): Promise<Fleet> {
  const f = await startFleet(...args);
  fleets.push(f);
  return f;
}

/** Publishes and activates `max_limit` on the order-search-limit binding through `via`. */
async function activateLimit(via: HostProcess, maxLimit: number, create: boolean): Promise<{ revision: number }> {
  const binding = { hook_ref: "order-search-limit@1.0.0", point: "tool.before", config: { max_limit: maxLimit } };
  if (create) await via.api("POST", "/api/v1/bindings", { id: "orders-limit", ...binding });
  else await via.api("PUT", "/api/v1/bindings/orders-limit", binding);
  const published = await via.api<{ release: { revision: number }; active_revision: number }>("POST", "/api/v1/releases", { activate: true });
  expect(published.active_revision).toBe(published.release.revision);
  return { revision: published.release.revision };
}

async function untilPrefetched(hosts: readonly HostProcess[], plugin: string): Promise<void> {
  for (const h of hosts) await expect.poll(() => h.output(), { timeout: 20_000, interval: 20 }).toContain(`"event":"plugin.prefetched","plugin":"${plugin}"`);
}

/** Every engine a fleet runs on: the three processes share one SQLite data folder, or one PostgreSQL database. */
const ENGINES: { engine: string; options: () => Promise<FleetOptions> }[] = [
  { engine: "SQLite (one data folder)", options: async () => ({}) },
  { engine: "PostgreSQL (one database, a data folder each)", options: async () => ({ database: await testDatabaseUrl("fleet") }) },
];

describe.each(ENGINES)("three hosts on $engine", ({ options: engineOptions }) => {
  it("an activation and a rollback through one host are served by the other two within 1 s", async () => {
    const { hosts } = await fleet(3, await engineOptions());
    const [a, b, c] = hosts as [HostProcess, HostProcess, HostProcess];
    await a.api("POST", "/api/v1/plugins", upload(LIMIT_MANIFEST, pluginWasm("order-search-limit")));
    // The others compile the new version as soon as it is stored (before any release uses it):
    // what the activation then costs them is the switch.
    await untilPrefetched([b, c], "order-search-limit@1.0.0");

    // Each host's serving_since, against the activation's activated_at: what the release took to reach it.
    const first = await activateLimit(a, 100, true);
    for (const ms of await switchDelays([b, c], first.revision)) expect(ms).toBeLessThan(1000);
    const second = await activateLimit(a, 50, false);
    for (const ms of await switchDelays([b, c], second.revision)) expect(ms).toBeLessThan(1000);
    for (const h of hosts) expect(await h.status()).toMatchObject({ active_revision: second.revision, serving_revision: second.revision, release_error: null });

    // A rollback through another host than the one that activated.
    await b.api("POST", "/api/v1/releases/rollback", {});
    for (const ms of await switchDelays([a, c], first.revision)) expect(ms).toBeLessThan(1000);
    for (const h of hosts) expect(await h.status()).toMatchObject({ active_revision: first.revision, serving_revision: first.revision, release_error: null });
    // Each host logged the switch it made on its own.
    expect(c.output()).toMatch(/"event":"release.followed","revision":1,"previousRevision":2/);
  }, 120_000);

  it("a host that cannot load the new release keeps serving the previous one and reports it; the others serve the new one", async () => {
    // Host 2 accepts modules of at most ~4 KB: the 175-byte guest, not the 19 KB plugin.
    const { hosts } = await fleet(3, { ...(await engineOptions()), args: (i) => (i === 2 ? ["--max-module-mb", "0.004"] : []) });
    const [a, b, small] = hosts as [HostProcess, HostProcess, HostProcess];
    await a.api("POST", "/api/v1/plugins", upload(manifestYaml(), fixture("continue")));
    await a.api("POST", "/api/v1/bindings", { id: "clamp", hook_ref: "clamp@1.0.0", point: "tool.before", config: { max_limit: 5 } });
    await a.api("POST", "/api/v1/releases", { activate: true });
    await untilAllServe(hosts, 1, performance.now());

    await a.api("POST", "/api/v1/plugins", upload(LIMIT_MANIFEST, pluginWasm("order-search-limit")));
    await untilPrefetched([b], "order-search-limit@1.0.0");
    const next = await activateLimit(a, 100, true);
    for (const ms of await switchDelays([b], next.revision)) expect(ms).toBeLessThan(1000);
    await expect.poll(async () => (await small.status()).release_error, { timeout: 5000, interval: 20 }).not.toBeNull();
    expect(await small.status()).toMatchObject({
      active_revision: next.revision, serving_revision: 1, loading_revision: null,
      release_error: { revision: next.revision, code: "MODULE_TOO_LARGE", message: expect.stringMatching(/at most 4194 bytes|4194/) },
    });
    // The prefetch looks for new plugin versions every 500 ms: its line may come after the release watcher's.
    await expect.poll(() => small.output(), { timeout: 2000, interval: 20 }).toContain('"event":"plugin.prefetch_failed","plugin":"order-search-limit@1.0.0","errorCode":"MODULE_TOO_LARGE"');
    expect(small.output()).toMatch(/"event":"release.load_failed","revision":2,"servingRevision":1,"errorCode":"MODULE_TOO_LARGE"/);
    // Still answering on the previous release, and back in line once the fleet rolls back.
    await b.api("POST", "/api/v1/releases/rollback", {});
    await expect.poll(async () => small.status(), { timeout: 2000, interval: 20 }).toMatchObject({ active_revision: 1, serving_revision: 1, release_error: null });
  }, 120_000);
});
