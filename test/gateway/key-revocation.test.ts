/**
 * Verified gateway keys are remembered, yet a key revoked on one host is refused on the
 * next request on every host sharing the store: SQLite (two connections to one file, as two
 * `sluice serve` processes on one data dir) and PostgreSQL (two hosts, each its own pool).
 */
import { afterEach, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { GatewayKeys } from "../../host/keys/keys.js";
import type { GatewayKeyStore } from "../../host/keys/key-store.js";
import { openSqliteKeyStore } from "../../host/keys/sqlite-key-store.js";
import { openPostgresStores, type PostgresStores } from "../../host/registry/postgres-stores.js";
import { testDatabaseUrl } from "../helpers/postgres.js";
import { tempFile } from "../helpers/store-engines.js";

/** A store that counts the lookups a verify pays for. */
function counted(store: GatewayKeyStore): GatewayKeyStore & { lookups: number; generations: number } {
  const c = {
    ...store, lookups: 0, generations: 0,
    byHash: (h: string) => { c.lookups += 1; return store.byHash(h); },
    generation: () => { c.generations += 1; return store.generation(); },
  };
  return c;
}

const closing: (() => Promise<void>)[] = [];
afterEach(async () => { for (const close of closing.splice(0).reverse()) await close(); });

describe("gateway key cache on SQLite", () => {
  it("looks a key up once, and refuses it on the next request once another host revoked it", async () => {
    const file = tempFile("keys-two-hosts");
    const storeA = counted(openSqliteKeyStore(file));
    const hostA = new GatewayKeys(storeA);
    const hostB = new GatewayKeys(file);
    closing.push(() => hostA.close(), () => hostB.close());
    const { key, record } = await hostB.create({ spaceId: "team-a" });
    for (let i = 0; i < 5; i++) expect(await hostA.verify(key)).toEqual(record);
    expect(storeA.lookups).toBe(1);
    expect(await hostB.verify(key)).toEqual(record);
    await hostB.revoke(record.id);
    expect(await hostA.verify(key)).toBeNull();
    expect(await hostB.verify(key)).toBeNull();
  });

  it("refuses a key revoked by any writer of the file, not only through GatewayKeys", async () => {
    const file = tempFile("keys-raw-sql");
    const host = new GatewayKeys(file);
    closing.push(() => host.close());
    const { key, record } = await host.create({ spaceId: "team-a" });
    const other = await host.create({ spaceId: "team-a" });
    expect(await host.verify(key)).toEqual(record);
    expect(await host.verify(other.key)).toEqual(other.record);
    // What an operator's SQL (or an older release's revoke) does to the shared file.
    const db = new Database(file);
    db.prepare("UPDATE gateway_keys SET revoked_at = ? WHERE id = ?").run(new Date().toISOString(), record.id);
    db.close();
    expect(await host.verify(key)).toBeNull();
    expect(await host.verify(other.key)).toEqual(other.record);
  });
});

describe("gateway key cache on PostgreSQL", () => {
  const openHost = async (url: string) => {
    const stores: PostgresStores = await openPostgresStores(url, { max: 2 });
    const store = counted(stores.gatewayKeys);
    const keys = new GatewayKeys(store);
    closing.push(() => stores.close());
    return { keys, store };
  };

  it("reads neither the key nor the generation per request, and refuses a key on the next request once another host revoked it", async () => {
    const url = await testDatabaseUrl("key-revocation");
    const a = await openHost(url);
    const b = await openHost(url);
    const { key, record } = await b.keys.create({ spaceId: "team-a" });
    expect(await a.keys.verify(key)).toEqual(record);
    const before = { lookups: a.store.lookups, generations: a.store.generations };
    for (let i = 0; i < 20; i++) expect(await a.keys.verify(key)).toEqual(record);
    expect(a.store.lookups).toBe(before.lookups);
    expect(a.store.generations).toBeLessThanOrEqual(before.generations + 1);
    expect(await b.keys.verify(key)).toEqual(record);
    const revoking = performance.now();
    await b.keys.revoke(record.id);
    // The revocation answers once no host can still trust an older generation.
    expect(performance.now() - revoking).toBeGreaterThanOrEqual(a.store.generationLeaseMs);
    expect(await a.keys.verify(key)).toBeNull();
    expect(await b.keys.verify(key)).toBeNull();
  });

  it("refuses a revoked key on a host that was busy verifying it while the revocation ran", async () => {
    const url = await testDatabaseUrl("key-revocation-busy");
    const a = await openHost(url);
    const b = await openHost(url);
    const { key, record } = await b.keys.create({ spaceId: "team-a" });
    expect(await a.keys.verify(key)).toEqual(record);
    let stop = false;
    const traffic = (async () => { while (!stop) { await a.keys.verify(key); await new Promise((r) => setTimeout(r, 5)); } })();
    await b.keys.revoke(record.id);
    expect(await a.keys.verify(key)).toBeNull();
    stop = true;
    await traffic;
  });
});
