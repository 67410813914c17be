import { readdirSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { isSluiceError, SluiceError } from "../../host/errors/sluice-error.js";
import { Registry } from "../../host/registry/registry.js";
import type { RegistryTx } from "../../host/registry/store.js";
import { fixture } from "../helpers/fixtures.js";
import { manifestYaml, tempDir } from "./fixtures.js";

const open: Registry[] = [];
afterEach(async () => { for (const r of open.splice(0)) await r.close(); });

async function registryIn(dataDir: string): Promise<Registry> {
  const r = await Registry.open({ dataDir, busyTimeoutMs: 50, hostOptions: { workers: 1 } });
  open.push(r);
  return r;
}
const artifacts = (dataDir: string) => readdirSync(path.join(dataDir, "artifacts", "sha256"));

describe("the registry when its database cannot take a write", () => {
  it("a database locked by another writer gives STORE_UNAVAILABLE, and the refused upload leaves no record and no artifact", async () => {
    const dataDir = tempDir();
    const registry = await registryIn(dataDir);
    const other = new Database(path.join(dataDir, "sluice.db"));
    other.exec("BEGIN EXCLUSIVE");
    try {
      const err = await registry.upload({ manifest: manifestYaml(), wasm: fixture("continue") }).catch((e: unknown) => e);
      expect(isSluiceError(err, "STORE_UNAVAILABLE")).toBe(true);
      expect((err as Error).message).toMatch(/locked/);
    } finally {
      other.exec("ROLLBACK");
      other.close();
    }
    expect(await registry.listPlugins()).toEqual([]);
    expect(artifacts(dataDir)).toEqual([]);
    await expect(registry.upload({ manifest: manifestYaml(), wasm: fixture("continue") })).resolves.toMatchObject({ created: true });
  });

  it("a full database gives STORE_FULL and keeps what it had, with no partial release", async () => {
    const dataDir = tempDir();
    const registry = await registryIn(dataDir);
    await registry.upload({ manifest: manifestYaml(), wasm: fixture("continue") });
    await registry.createBinding({ id: "b1", hook_ref: "clamp@1.0.0", point: "tool.before", config: { max_limit: 5 } });
    // SQLite's own "disk full": no page may be added beyond the ones in use.
    const db = (registry.store as unknown as { db: Database.Database }).db;
    db.pragma(`max_page_count = ${db.pragma("page_count", { simple: true }) as number}`);
    const big = { id: "b2", hook_ref: "clamp@1.0.0", point: "tool.before", config: { max_limit: 5 }, match: { spaces: Array.from({ length: 200 }, (_, i) => `space-${i}-${"x".repeat(200)}`) } };
    const err = await registry.createBinding(big).catch((e: unknown) => e);
    expect(isSluiceError(err, "STORE_FULL")).toBe(true);
    const published = await registry.publish({ activate: true }).catch((e: unknown) => e);
    if (isSluiceError(published)) expect(published.code).toBe("STORE_FULL");
    expect((await registry.listBindings()).map((b) => b.id)).toEqual(["b1"]);
    expect((await registry.listReleases()).length).toBeLessThanOrEqual(1);
  });

  it("a failed read of the bound plugin is STORE_UNAVAILABLE, not PLUGIN_NOT_FOUND: a client is not told a plugin it uploaded is gone", async () => {
    const registry = await registryIn(tempDir());
    await registry.upload({ manifest: manifestYaml(), wasm: fixture("continue") });
    await registry.createBinding({ id: "b1", hook_ref: "clamp@1.0.0", point: "tool.before", config: { max_limit: 5 } });
    // The plugin's read inside the binding's transaction fails, as a PostgreSQL connection ended mid-way does.
    const store = registry.store as unknown as { transaction: <T>(fn: (tx: RegistryTx) => Promise<T>) => Promise<T> };
    const transaction = store.transaction.bind(store);
    store.transaction = (fn) => transaction((tx) => fn({ ...tx, getPlugin: async () => { throw new SluiceError("STORE_UNAVAILABLE", "the database connection ended"); } }));
    const created = await registry.createBinding({ id: "b2", hook_ref: "clamp@1.0.0", point: "tool.before", config: { max_limit: 5 } }).catch((e: unknown) => e);
    const updated = await registry.updateBinding("b1", { hook_ref: "clamp@1.0.0", point: "tool.before", config: { max_limit: 6 } }).catch((e: unknown) => e);
    expect([(created as SluiceError).code, (updated as SluiceError).code]).toEqual(["STORE_UNAVAILABLE", "STORE_UNAVAILABLE"]);
  });
});
