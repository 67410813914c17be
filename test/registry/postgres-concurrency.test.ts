/**
 * Check-then-write sequences on PostgreSQL with writers on separate pools (separate
 * sessions, as separate hosts are): numbered revisions stay unique and gapless, a binding
 * id is taken once, an operation is claimed by one host, migrations run once.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isSluiceError } from "../../host/errors/sluice-error.js";
import { openPostgresStores, type PostgresStores } from "../../host/registry/postgres-stores.js";
import { watchReleases } from "../../host/registry/postgres-store.js";
import { watchQuarantine } from "../../host/reliability/postgres-quarantine-store.js";
import type { BindingSpec } from "../../host/registry/records.js";
import type { OperationRecord } from "../../host/records/types.js";
import { testDatabaseUrl } from "../helpers/postgres.js";
import { until } from "../helpers/until.js";

let hosts: PostgresStores[];
beforeAll(async () => {
  const url = await testDatabaseUrl("concurrency");
  // Four hosts starting at once: the migration runs once, under its lock. A fleet shares its key (it seals the records).
  hosts = await Promise.all([1, 2, 3, 4].map(() => openPostgresStores(url, { max: 4, key: "fleet-key-0123456789abcdef" })));
});
afterAll(async () => {
  await Promise.all((hosts ?? []).map((h) => h.close()));
});

const spec = (id: string): BindingSpec => ({ id, hook_ref: "p@1.0.0", point: "tool.before", match: {}, priority: 0, timeout_ms: 100, failure_policy: "fail-closed", observe_only: false, config: {}, enabled: true, mandatory: false });

describe("PostgreSQL registry and records under concurrent hosts", () => {
  it("migrates once when four hosts open the same empty database together", async () => {
    const { rows } = await hosts[0]!.db.query<{ component: string; n: string }>("SELECT component, count(*) AS n FROM schema_migrations GROUP BY component ORDER BY component");
    expect(rows.map((r) => [r.component, Number(r.n)])).toEqual([["agent-door", 2], ["api-tokens", 1], ["control-audit", 1], ["gateway-keys", 3], ["kv", 1], ["payloads", 1], ["quarantine", 1], ["records", 2], ["registry", 3]]);
  });

  it("numbers 40 releases published at once from four hosts 1 to 40, each once", async () => {
    const made = await Promise.all(Array.from({ length: 40 }, (_, i) => hosts[i % 4]!.registry.insertRelease({ order_mode: "staged", bindings: [], based_on: null, note: `n${i}` })));
    expect(made.map((r) => r.revision).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect((await hosts[1]!.registry.listReleases()).map((r) => r.note).sort()).toEqual(made.map((r) => r.note).sort());
  });

  it("lets exactly one of four hosts register a binding id, the others get BINDING_CONFLICT", async () => {
    const results = await Promise.allSettled(hosts.map((h) => h.registry.insertBinding(spec("same-id"))));
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(refused).toHaveLength(3);
    for (const r of refused) expect(isSluiceError(r.reason, "BINDING_CONFLICT")).toBe(true);
  });

  it("gives draft positions 0..n-1 to bindings added at once from several hosts", async () => {
    await Promise.all(Array.from({ length: 12 }, (_, i) => hosts[i % 4]!.registry.insertBinding(spec(`b-${i}`))));
    const positions = (await hosts[2]!.registry.listBindings()).map((b) => b.position);
    expect(positions).toEqual(Array.from({ length: 13 }, (_, i) => i));
  });

  it("lets one host claim an operation whose owner is gone; the others are told busy", async () => {
    const now = Date.now();
    const record = { operationId: "op-1", owner: "dead-host", phase: "after", realStatus: "succeeded", createdAt: now, updatedAt: now } as unknown as OperationRecord;
    await hosts[0]!.records.insert(record);
    // Every claimer is a live host (its lease current), as a running host is.
    await Promise.all(hosts.map((h, i) => h.records.heartbeat(`host-${i}`, now + 60_000)));
    const claims = await Promise.all(hosts.map((h, i) => h.records.claim("op-1", `host-${i}`, now)));
    expect(claims.filter((c) => c === "claimed")).toHaveLength(1);
    expect(claims.filter((c) => c === "busy")).toHaveLength(3);
    // The winner is live: nobody else takes it.
    const winner = `host-${claims.indexOf("claimed")}`;
    expect(await hosts[3]!.records.claim("op-1", "host-x", now)).toBe("busy");
    expect((await hosts[3]!.records.get("op-1"))!.owner).toBe(winner);
    // Its lease ends: the operation is free again.
    await hosts[0]!.records.retire(winner);
    expect(await hosts[3]!.records.claim("op-1", "host-x", now)).toBe("claimed");
  });

  it("marks interrupted only the operations of owners that are gone, never a live peer's", async () => {
    const now = Date.now();
    const running = (id: string, owner: string | null) => ({ operationId: id, owner, phase: "operation", realStatus: "running", createdAt: now, updatedAt: now }) as unknown as OperationRecord;
    await hosts[0]!.records.heartbeat("live-peer", now + 60_000);
    for (const r of [running("mine", "restarting-host"), running("peer", "live-peer"), running("gone", "crashed-host"), running("legacy", null)]) await hosts[0]!.records.insert(r);
    const interrupted = await hosts[1]!.records.markInterrupted("restarting-host", now);
    expect(interrupted.sort()).toEqual(["gone", "legacy", "mine"]);
    expect((await hosts[2]!.records.get("peer"))!.realStatus).toBe("running");
    expect((await hosts[2]!.records.get("gone"))).toMatchObject({ realStatus: "unknown", owner: null });
  });
});

describe("PostgreSQL notifications between hosts", () => {
  it("tells every other host of an activation when it commits, and of none that rolled back", async () => {
    const release = await hosts[0]!.registry.insertRelease({ order_mode: "staged", bindings: [], based_on: null, note: "watched" });
    const seen: number[] = [];
    const stops = await Promise.all(hosts.slice(1).map((h, i) => watchReleases(h.db, () => seen.push(i))));
    try {
      await expect(hosts[0]!.registry.transaction((tx) => tx.activate(release.revision, "activate", () => { throw new Error("host refused"); }))).rejects.toThrow("host refused");
      await hosts[0]!.registry.activate(release.revision, "activate", () => {});
      // However long a loaded machine takes to deliver them (a fixed second is not always
      // enough); then a little longer, for a notification that should not come.
      expect(await until(() => seen.length >= 3)).toBe(true);
      await new Promise((r) => setTimeout(r, 50));
      expect(seen.sort()).toEqual([0, 1, 2]);
    } finally {
      await Promise.all(stops.map((s) => s()));
    }
  });

  it("tells every other host of a quarantine decision and of its lift", async () => {
    const changes: string[] = [];
    const stop = await watchQuarantine(hosts[3]!.db, () => changes.push("changed"));
    try {
      const entry = { ref: "flaky@1.0.0", since: Date.now(), until: null, failures: 5, lastError: { code: "GUEST_TRAP" as const, message: "trap" } };
      await hosts[0]!.quarantine.put(entry);
      expect(await until(() => changes.length === 1)).toBe(true);
      expect((await hosts[3]!.quarantine.list(Date.now())).map((e) => e.ref)).toEqual(["flaky@1.0.0"]);
      await hosts[1]!.quarantine.lift("flaky@1.0.0");
      expect(await until(() => changes.length === 2)).toBe(true);
      expect(await hosts[3]!.quarantine.list(Date.now())).toEqual([]);
    } finally {
      await stop();
    }
  });
});
