/**
 * The key-value capability in PostgreSQL mode: guests call kv synchronously from their
 * worker, which reaches the shared database through its connection thread. Two hosts on
 * one database are one deployment: a guest on either sees the keys the other wrote.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../host/index.js";
import { KV_LIMITS, KV_STATUS } from "../../host/sandbox/kv/kv-store.js";
import { openWorkerKv } from "../../host/sandbox/kv/open-kv.js";
import { PostgresKvStore } from "../../host/sandbox/kv/postgres-kv-store.js";
import { openPostgresStores, type PostgresStores } from "../../host/registry/postgres-stores.js";
import { openPostgres } from "../../host/storage/postgres.js";
import { fixture } from "../helpers/fixtures.js";
import { testDatabaseUrl } from "../helpers/postgres.js";

let url: string;
let stores: PostgresStores;
let a: Host;
let b: Host;
const bytes = (s: string) => new TextEncoder().encode(s);

beforeAll(async () => {
  url = await testDatabaseUrl("kv");
  stores = await openPostgresStores(url);
  [a, b] = [createHost({ workers: 1, kvPath: url, quarantine: false }), createHost({ workers: 1, kvPath: url, quarantine: false })];
  for (const host of [a, b]) {
    // Each call is two database round trips from the worker: a margin over the 100 ms default for a loaded machine.
    await host.loadPlugin({ id: "counter", version: "1.0.0", wasm: fixture("kv-counter"), capabilities: ["kv"], limits: { timeoutMs: 2000 } });
    host.activate({ revision: 1, bindings: [{ id: "count", hookRef: "counter@1.0.0", point: "tool.before" }] });
  }
});
afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
  await stores?.close();
});

const count = async (host: Host, spaceId: string): Promise<unknown> => {
  const r = await host.tool({ spaceId, actorId: "u" }, { toolId: "t", name: "t", schema: { type: "object" }, arguments: {}, callId: "c" }, async () => ({}));
  return r.ok ? r.annotations.n : r;
};

describe("the key-value capability on PostgreSQL", () => {
  it("is shared by two hosts on one database: a guest's counter counts calls on both", async () => {
    const seen = [await count(a, "tenant"), await count(b, "tenant"), await count(a, "tenant"), await count(b, "tenant")];
    expect(seen).toEqual([1, 2, 3, 4]);
    // Another tenant's scope starts from nothing on either host.
    expect(await count(b, "other")).toBe(1);
  });

  it("answers a worker synchronously through the bridge with the statuses of the SQLite store", () => {
    const kv = openWorkerKv(url);
    expect(kv.get("bridge", bytes("k"))).toBeUndefined();
    expect(kv.set("bridge", bytes("k"), bytes("v\u00e9"))).toBe(KV_STATUS.ok);
    expect(new TextDecoder().decode(kv.get("bridge", bytes("k")))).toBe("v\u00e9");
    expect(kv.set("bridge", new Uint8Array(KV_LIMITS.keyBytes + 1), bytes("v"))).toBe(KV_STATUS.tooLarge);
    expect(kv.set("bridge", bytes("k"), new Uint8Array(KV_LIMITS.valueBytes + 1))).toBe(KV_STATUS.tooLarge);
    expect(kv.delete("bridge", bytes("k"))).toBe(KV_STATUS.ok);
    expect(kv.delete("bridge", bytes("k"))).toBe(KV_STATUS.notFound);
    kv.close();
  });

  it("fails a guest's kv call STORE_UNAVAILABLE when the database cannot be reached (without the password), and never quarantines the guest for it", async () => {
    // Quarantine at its defaults: five guest faults in a minute would quarantine the plugin.
    const down = createHost({ workers: 1, kvPath: "postgres://u:kv-secret-pw@127.0.0.1:1/none" });
    try {
      await down.loadPlugin({ id: "counter", version: "1.0.0", wasm: fixture("kv-counter"), capabilities: ["kv"] });
      down.activate({ revision: 1, bindings: [{ id: "count", hookRef: "counter@1.0.0", point: "tool.before" }] });
      for (let i = 0; i < 7; i++) {
        const r = await down.tool({ spaceId: "s", actorId: "u" }, { toolId: "t", name: "t", schema: { type: "object" }, arguments: {}, callId: "c" }, async () => ({}));
        expect(r.ok).toBe(false);
        expect(JSON.stringify(r)).not.toContain("kv-secret-pw");
        expect(r.ok === false && r.hooks[0]?.error?.code).toBe("STORE_UNAVAILABLE");
      }
    } finally {
      await down.close();
    }
  });

  it("never lets two hosts racing for a scope's last free slots go over the quota", async () => {
    const [e1, e2] = await Promise.all([openPostgres(url), openPostgres(url)]);
    try {
      const [s1, s2] = [new PostgresKvStore(e1), new PostgresKvStore(e2)];
      const scope = "quota-race";
      await e1.query("INSERT INTO kv (scope, key, value) SELECT $1, convert_to('pre-' || i, 'UTF8'), '\\x78' FROM generate_series(0, $2 - 1) AS i", [Buffer.from(scope), KV_LIMITS.keysPerScope - 4]);
      // 4 slots left, 20 new keys from two hosts at once: exactly 4 land.
      const statuses = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? s1 : s2).set(scope, bytes(`new-${i}`), bytes("x"))));
      expect(statuses.filter((s) => s === KV_STATUS.ok)).toHaveLength(4);
      expect(statuses.filter((s) => s === KV_STATUS.quota)).toHaveLength(16);
      const { rows } = await e1.query<{ n: string }>("SELECT count(*) AS n FROM kv WHERE scope = $1", [Buffer.from(scope)]);
      expect(Number(rows[0]!.n)).toBe(KV_LIMITS.keysPerScope);
      // A key already there is overwritten even at the quota.
      expect(await s2.set(scope, bytes("pre-0"), bytes("y"))).toBe(KV_STATUS.ok);
    } finally {
      await Promise.all([e1.close(), e2.close()]);
    }
  });
});
