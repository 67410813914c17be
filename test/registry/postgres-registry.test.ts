/**
 * The registry opened on a shared PostgreSQL database (`Registry.open({ database })`):
 * what one host uploads, binds and activates, a host with its own empty data folder that
 * never saw the upload serves after it opens, loading the plugin's code from the database.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isSluiceError } from "../../host/errors/sluice-error.js";
import { Registry } from "../../host/registry/registry.js";
import { pluginWasm } from "../helpers/fixtures.js";
import { testDatabaseUrl } from "../helpers/postgres.js";
import { until } from "../helpers/until.js";
import { fixture, manifestYaml, tempDir, toolCall } from "./fixtures.js";

const LIMIT_MANIFEST = readFileSync(new URL("../../plugins/order-search-limit/hook.yaml", import.meta.url), "utf8");
const LIMIT = "order-search-limit@1.0.0";

const open: Registry[] = [];
async function openOn(database: string, dataDir = tempDir()): Promise<Registry> {
  // Both hosts share one digest key, as a fleet's hosts must (their records' digests compare).
  const r = await Registry.open({ dataDir, database, digestSecret: "fleet-digest-key-0123456789abcdef", hostOptions: { workers: 1 } });
  open.push(r);
  return r;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});

describe("Registry on PostgreSQL", () => {
  it("lets a second host, with a data folder of its own, serve the release the first one activated", async () => {
    const database = await testDatabaseUrl("registry");
    const a = await openOn(database);
    const { plugin } = await a.upload({ manifest: LIMIT_MANIFEST, wasm: pluginWasm("order-search-limit") });
    await a.createBinding({ id: "orders-limit", hook_ref: LIMIT, point: "tool.before", match: { tool_ids: ["orders.search"] }, config: { max_limit: 100 } });
    await a.publish({ activate: true });

    const bDir = tempDir();
    const b = await openOn(database, bDir);
    // Nothing of the plugin on b's disk: its code came from the database.
    expect(existsSync(path.join(bDir, "artifacts", "sha256", `${plugin.sha256}.wasm`))).toBe(false);
    expect(b.host.release.revision).toBe(1);
    let received: unknown;
    const r = await b.host.tool({ spaceId: "s1" }, toolCall(500), async (args) => { received = args; return {}; });
    expect(r.ok).toBe(true);
    expect(received).toEqual({ q: "late", limit: 100 });
    expect((await b.listPlugins()).map((p) => `${p.id}@${p.version}`)).toEqual([LIMIT]);
  });

  it("keeps versions immutable across hosts: a different module under a stored version is VERSION_CONFLICT on any host", async () => {
    const database = await testDatabaseUrl("registry-immutable");
    const [a, b] = [await openOn(database), await openOn(database)];
    await a.upload({ manifest: LIMIT_MANIFEST, wasm: pluginWasm("order-search-limit") });
    const err = await b.upload({ manifest: LIMIT_MANIFEST, wasm: pluginWasm("pii-redact") }).catch((e: unknown) => e);
    expect(isSluiceError(err, "VERSION_CONFLICT")).toBe(true);
  });

  it("records every host's operations in the one database", async () => {
    const database = await testDatabaseUrl("registry-records");
    const [a, b] = [await openOn(database), await openOn(database)];
    const first = await a.host.tool({ spaceId: "s1" }, toolCall(1), async () => ({}));
    const second = await b.host.tool({ spaceId: "s1" }, toolCall(2), async () => ({}));
    const ids = (await a.host.records!.list()).map((o) => o.operationId).sort();
    expect(ids).toEqual([first.facts.operationId, second.facts.operationId].sort());
  });

  it("shares quarantine: a plugin quarantined on one host is refused on the other within a second, and a lift on the other reaches the first", async () => {
    const database = await testDatabaseUrl("registry-quarantine");
    const [a, b] = [await openOn(database), await openOn(database)];
    await a.upload({ manifest: manifestYaml({ id: "trap" }), wasm: fixture("unreachable") });
    await a.createBinding({ id: "trap", hook_ref: "trap@1.0.0", point: "tool.before", config: { max_limit: 1 } });
    await a.publish({ activate: true });
    // Five guest faults in the window (the default threshold) quarantine it on a.
    for (let i = 0; i < 5; i++) await a.host.tool({ spaceId: "s1" }, toolCall(1), async () => ({}));
    expect(a.host.quarantine.list().map((q) => q.ref)).toEqual(["trap@1.0.0"]);
    expect(await until(() => b.host.quarantine.list().length === 1, 1_000)).toBe(true);
    expect(b.host.quarantine.list()[0]).toMatchObject({ ref: "trap@1.0.0", failures: 5, lastError: { code: "GUEST_TRAP" } });
    expect(b.host.quarantine.lift("trap@1.0.0")).toBe(true);
    expect(await until(() => a.host.quarantine.list().length === 0, 1_000)).toBe(true);
  });
});

