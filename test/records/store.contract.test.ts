/**
 * One contract, every records store: each engine of test/helpers/store-engines.ts, plus
 * SQLite on a file shared with the registry. A store is closed after each case.
 */
import { afterEach, describe, expect, it } from "vitest";
import { openSqliteRecords, type AuditRecord, type OperationStore, type PayloadStore } from "../../host/index.js";
import { openSqliteStore } from "../../host/registry/sqlite-store.js";
import { damageableSqlite, enginesWith, recordDamager, tempFile } from "../helpers/store-engines.js";
import { operationRecord, STORED_RESULT } from "../helpers/operation-record.js";
import type { OperationRecord } from "../../host/records/types.js";
import { hookTrends } from "../../host/records/hook-trends.js";
import { operationUsage } from "../../host/records/usage.js";

const record = operationRecord;
const audit = (operationId: string, bindingId: string, at: number): AuditRecord => ({
  operationId, bindingId, hookRef: "p@1.0.0", codeSha256: "ab".repeat(32), point: "tool.after", phase: "after", revision: 1, outcome: "continue",
  inputDigest: "1".repeat(64), outputDigest: "1".repeat(64), patchDigest: null, durationMs: 0.5, fuel: 1_234, errorCode: null, at,
});
const RESULT = STORED_RESULT;

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => { for (const s of opened.splice(0)) await s.close(); });
const track = <T extends { close(): Promise<void> }>(s: T): T => { opened.push(s); return s; };

const stores: [string, () => Promise<OperationStore>][] = [
  ...enginesWith("records").map(([name, make]): [string, () => Promise<OperationStore>] => [name, () => make()]),
  ["SQLite file shared with the registry", async () => { const file = tempFile("shared"); await openSqliteStore(file).close(); return damageableSqlite(openSqliteRecords(file), file); }],
];

for (const [name, make] of stores) {
  const open = async () => track(await make());
  describe(`records store contract: ${name}`, () => {
    it("keeps a record, merges updates, and stores the real result apart", async () => {
      const s = await open();
      await s.insert(record("op-1"));
      await s.update("op-1", { phase: "after", realStatus: "succeeded", realResultRef: "r" }, RESULT);
      expect(await s.get("op-1")).toMatchObject({ phase: "after", realStatus: "succeeded", realResultRef: "r", revision: 1 });
      expect(await s.result("op-1")).toEqual(RESULT);
      expect(await s.get("missing")).toBeUndefined();
      await expect(s.update("missing", { phase: "finished" })).rejects.toMatchObject({ code: "OPERATION_NOT_FOUND" });
    });

    it("an update changes only its keys, keeps text of any kind, and unsets a key set to undefined", async () => {
      const s = await open();
      await s.insert(record("op-1", { usage: { input_tokens: 3, output_tokens: 4 }, providerRequestId: "req-1" }));
      // A NUL character (jsonb cannot hold one) and other text a guest's error may carry.
      const message = "hook said \u0000 \"quoted\" ünïcödé \u2028 😀";
      await s.update("op-1", { phase: "operation", realStatus: "running", error: { code: "HOOK_FAILED", message }, providerRequestId: undefined, updatedAt: 2_000 });
      const got = await s.get("op-1");
      expect(got).toEqual({ ...record("op-1", { usage: { input_tokens: 3, output_tokens: 4 } }), phase: "operation", realStatus: "running", error: { code: "HOOK_FAILED", message }, updatedAt: 2_000, providerRequestId: undefined });
      expect((await s.list({ realStatus: "running" })).map((r) => r.operationId)).toEqual(["op-1"]);
      await s.update("op-1", { owner: "host-b" });
      expect((await s.get("op-1"))?.owner).toBe("host-b");
    });

    it("an insert writes its audit rows and its real result with the record; an update appends its rows after them, in order", async () => {
      const s = await open();
      await s.insert(record("op-1", { phase: "operation", realStatus: "running" }), [audit("op-1", "b-1", 1_000), audit("op-1", "b-2", 1_001)], RESULT);
      expect(await s.get("op-1")).toMatchObject({ phase: "operation", realStatus: "running" });
      expect(await s.result("op-1")).toEqual(RESULT);
      await s.update("op-1", { phase: "after", realStatus: "succeeded" }, undefined, [audit("op-1", "b-3", 1_002)]);
      expect((await s.audit({ operationId: "op-1" })).map((a) => a.bindingId)).toEqual(["b-1", "b-2", "b-3"]);
      await s.update("op-1", { phase: "finished", outcome: "succeeded" }, RESULT, [audit("op-1", "b-4", 1_003)]);
      // A finished operation keeps no real result, even one given with its last write.
      expect(await s.result("op-1")).toBeUndefined();
      expect((await s.audit({ operationId: "op-1" })).map((a) => a.bindingId)).toEqual(["b-1", "b-2", "b-3", "b-4"]);
      // An operation that ends before any other write is one insert, finished, with no result.
      await s.insert(record("op-2", { phase: "finished", outcome: "rejected" }), [audit("op-2", "b-1", 1_004)], RESULT);
      expect(await s.result("op-2")).toBeUndefined();
      expect((await s.audit({ operationId: "op-2" })).map((a) => a.bindingId)).toEqual(["b-1"]);
    });

    it("an update after the row changed behind the writer's back merges onto the row as it is now", async () => {
      const s = await open();
      await s.insert(record("op-1", { owner: "host-a", phase: "operation", realStatus: "running" }));
      await s.update("op-1", { attempts: 1 });
      // host-a has no live lease: another host takes the operation (a write this writer did not make).
      expect(await s.claim("op-1", "host-b")).toBe("claimed");
      await s.update("op-1", { phase: "after", realStatus: "succeeded" }, RESULT, [audit("op-1", "b-1", 1_000)]);
      expect(await s.get("op-1")).toMatchObject({ owner: "host-b", attempts: 1, phase: "after", realStatus: "succeeded" });
      expect(await s.result("op-1")).toEqual(RESULT);
      expect((await s.audit({ operationId: "op-1" })).map((a) => a.bindingId)).toEqual(["b-1"]);
    });

    it("deletes the real result when the operation finishes", async () => {
      const s = await open();
      await s.insert(record("op-1"));
      await s.update("op-1", { phase: "after", realStatus: "succeeded" }, RESULT);
      await s.update("op-1", { phase: "finished", outcome: "succeeded" });
      expect(await s.result("op-1")).toBeUndefined();
    });

    it("lists newest first, filtered by phase and real status", async () => {
      const s = await open();
      await s.insert(record("a", { createdAt: 1 }));
      await s.insert(record("b", { createdAt: 2, phase: "after", realStatus: "succeeded" }));
      await s.insert(record("c", { createdAt: 3, phase: "operation", realStatus: "running" }));
      expect((await s.list()).map((r) => r.operationId)).toEqual(["c", "b", "a"]);
      expect((await s.list({ phase: "after" })).map((r) => r.operationId)).toEqual(["b"]);
      expect((await s.list({ realStatus: "running", limit: 5 })).map((r) => r.operationId)).toEqual(["c"]);
    });

    // A store that keeps records as objects (memory) keeps nothing at rest to damage.
    if (name !== "memory") it("lists every record that opens and reports one damaged at rest by its id and RECORD_UNREADABLE, with no content; reading it alone fails naming it", async () => {
      const s = await open();
      const damage = recordDamager(s);
      if (!damage) throw new Error(`the ${name} engine's records cannot be damaged by the test helper`);
      const secret = "the damaged record's artifact";
      await s.insert(record("a", { createdAt: 1 }));
      await s.insert(record("b", { createdAt: 2, phase: "after", realStatus: "succeeded", artifacts: [{ note: secret }] }));
      await s.insert(record("c", { createdAt: 3, phase: "after", realStatus: "succeeded" }));
      await damage("b");
      const unreadable: [string, unknown][] = [];
      expect((await s.list({}, (id, error) => unreadable.push([id, error]))).map((r) => r.operationId)).toEqual(["c", "a"]);
      expect(unreadable).toEqual([["b", expect.objectContaining({ code: "RECORD_UNREADABLE", details: expect.objectContaining({ id: "b" }) })]]);
      expect(JSON.stringify(unreadable)).not.toContain(secret);
      // Filters and limits apply as before; without a listener the damaged row is still left out.
      expect((await s.list({ phase: "after" })).map((r) => r.operationId)).toEqual(["c"]);
      expect((await s.list({ limit: 2 })).map((r) => r.operationId)).toEqual(["c"]);
      await expect(s.get("b")).rejects.toMatchObject({ code: "RECORD_UNREADABLE", details: expect.objectContaining({ id: "b" }) });
    });

    it("turns running records of the recovering host and of hosts without a live lease into unknown, never a live peer's", async () => {
      const s = await open();
      await s.heartbeat("peer", 10_000);
      await s.heartbeat("expired", 4_000);
      await s.insert(record("mine", { phase: "operation", realStatus: "running", owner: "me" }));
      await s.insert(record("legacy", { phase: "operation", realStatus: "running" }));
      await s.insert(record("dead", { phase: "operation", realStatus: "running", owner: "expired" }));
      await s.insert(record("gone", { phase: "operation", realStatus: "running", owner: "never-heartbeat" }));
      await s.insert(record("peer's", { phase: "operation", realStatus: "running", owner: "peer" }));
      await s.insert(record("done", { phase: "after", realStatus: "succeeded", owner: "expired" }));
      expect((await s.markInterrupted("me", 5_000)).sort()).toEqual(["dead", "gone", "legacy", "mine"]);
      expect(await s.get("mine")).toMatchObject({ realStatus: "unknown", updatedAt: 5_000, owner: null });
      expect(await s.get("peer's")).toMatchObject({ realStatus: "running", owner: "peer" });
      // Not running: released for another resumer, its status kept.
      expect(await s.get("done")).toMatchObject({ realStatus: "succeeded", owner: null });
      expect(await s.markInterrupted("me", 5_000)).toEqual([]);
      // Once the peer's lease has ended, its running record is interrupted too.
      expect(await s.markInterrupted("me", 10_000)).toEqual(["peer's"]);
    });

    it("a retired owner is not live, whatever its lease said", async () => {
      const s = await open();
      await s.heartbeat("peer", Number.MAX_SAFE_INTEGER);
      await s.insert(record("op", { phase: "operation", realStatus: "running", owner: "peer" }));
      expect(await s.markInterrupted("me", 1_000)).toEqual([]);
      await s.retire("peer");
      expect(await s.markInterrupted("me", 1_000)).toEqual(["op"]);
    });

    it("claims an operation for one owner: busy while a live owner (itself included) holds it, free once that lease ends", async () => {
      const s = await open();
      await s.heartbeat("a", 5_000);
      await s.heartbeat("b", 50_000);
      await s.insert(record("op", { phase: "after", realStatus: "succeeded", owner: "a" }));
      expect(await s.claim("op", "b", 1_000)).toBe("busy");
      expect(await s.claim("op", "a", 1_000)).toBe("busy");
      expect(await s.claim("op", "b", 5_000)).toBe("claimed");
      expect((await s.get("op"))!.owner).toBe("b");
      expect(await s.claim("op", "b", 5_000)).toBe("busy");
      expect(await s.claim("op", "c", 5_000)).toBe("busy");
      await s.update("op", { owner: null });
      expect(await s.claim("op", "c", 5_000)).toBe("claimed");
      expect(await s.claim("missing", "c", 5_000)).toBe("missing");
    });

    it("two concurrent claims of one operation: exactly one wins", async () => {
      const s = await open();
      await s.insert(record("op", { phase: "after", realStatus: "succeeded" }));
      for (const owner of ["x", "y", "z"]) await s.heartbeat(owner, Date.now() + 60_000);
      const results = await Promise.all(["x", "y", "z"].map((owner) => s.claim("op", owner)));
      expect(results.filter((r) => r === "claimed")).toHaveLength(1);
      expect(results.filter((r) => r === "busy")).toHaveLength(2);
    });

    it("queries audit records by operation, binding and time range, oldest first", async () => {
      const s = await open();
      await s.appendAudit([audit("op-1", "b1", 10), audit("op-1", "b2", 20), audit("op-2", "b1", 30)]);
      expect((await s.audit({ operationId: "op-1" })).map((a) => a.bindingId)).toEqual(["b1", "b2"]);
      expect((await s.audit({ bindingId: "b1" })).map((a) => a.operationId)).toEqual(["op-1", "op-2"]);
      expect((await s.audit({ from: 20, to: 30 })).map((a) => a.at)).toEqual([20]);
      expect(await s.audit({ limit: 1 })).toHaveLength(1);
      const [first, second] = await s.audit();
      expect(first).toMatchObject({ ...audit("op-1", "b1", 10) });
      expect(second!.seq!).toBeGreaterThan(first!.seq!);
    });

    it("keeps the hooks an operation skipped, and why, with its record through inserts and updates", async () => {
      const s = await open();
      const skipped = [{ point: "tool.before" as const, bindingId: "off", hookRef: "p@1.0.0", reason: "disabled" as const }];
      await s.insert(record("op-1", { skipped }));
      const more = [...skipped, { point: "tool.after" as const, bindingId: "q", hookRef: "q@2.0.0", reason: "quarantined" as const }, { point: "tool.after" as const, bindingId: "other", hookRef: "p@1.0.0", reason: "not_matched" as const }];
      await s.update("op-1", { phase: "finished", outcome: "succeeded", skipped: more });
      expect((await s.get("op-1"))?.skipped).toEqual(more);
      expect((await s.list())[0]?.skipped).toEqual(more);
    });

    it("trends per binding are the audit rows' exact counts and nearest-rank figures, bucket by bucket", async () => {
      const s = await open();
      const row = (bindingId: string, at: number, durationMs: number, fuel: number | null, errorCode: string | null = null) => ({ ...audit("op", bindingId, at), durationMs, fuel, errorCode });
      await s.appendAudit([
        row("b1", 1_000, 1.5, 100), row("b1", 1_100, 2.5, 300), row("b1", 1_200, 0.5, 200, "HOOK_TIMEOUT"),
        row("b1", 2_050, 4.25, 1_000), row("b2", 2_999, 9, null), row("b1", 3_000, 7, 7), row("b1", 999, 7, 7),
      ]);
      const t = await hookTrends(s, { from: 1_000, to: 3_000, buckets: 2 });
      expect(t).toMatchObject({ bucketMs: 1_000, starts: [1_000, 2_000], rows: 5, complete: true });
      expect(t.bindings.map((b) => [b.bindingId, b.buckets, b.total])).toEqual([
        ["b1", [{ calls: 3, errors: 1, p50Ms: 1.5, p99Ms: 2.5, fuelP50: 200, fuelP99: 300 }, { calls: 1, errors: 0, p50Ms: 4.25, p99Ms: 4.25, fuelP50: 1_000, fuelP99: 1_000 }],
          { calls: 4, errors: 1, p50Ms: 1.5, p99Ms: 4.25, fuelP50: 200, fuelP99: 1_000 }],
        ["b2", [{ calls: 0, errors: 0, p50Ms: null, p99Ms: null, fuelP50: null, fuelP99: null }, { calls: 1, errors: 0, p50Ms: 9, p99Ms: 9, fuelP50: null, fuelP99: null }],
          { calls: 1, errors: 0, p50Ms: 9, p99Ms: 9, fuelP50: null, fuelP99: null }],
      ]);
      expect((await hookTrends(s, { from: 1_000, to: 3_000, buckets: 2, bindingId: "b2" })).bindings.map((b) => b.bindingId)).toEqual(["b2"]);
    });

    it("usage per space and actor counts the operations started in the range, their errors and their billed tokens", async () => {
      const s = await open();
      const op = (id: string, spaceId: string, actorId: string | undefined, createdAt: number, over: Partial<OperationRecord> = {}) =>
        record(id, { createdAt, identity: { ...record(id).identity, ctx: { spaceId, ...(actorId ? { actorId } : {}) } }, phase: "finished", ...over });
      await s.insert(op("a", "team-a", "key-1", 1_000, { usage: { input_tokens: 10, output_tokens: 3 } }));
      await s.insert(op("b", "team-a", "key-1", 1_500, { error: { code: "HOOK_REJECTED", message: "no" }, outcome: "rejected" }));
      await s.insert(op("c", "team-a", undefined, 1_600, { usage: { input_tokens: 1, output_tokens: 1 } }));
      await s.insert(op("d", "team-b", "key-2", 1_700));
      await s.insert(op("e", "team-b", "key-2", 5_000));
      const u = await operationUsage(s, { from: 1_000, to: 2_000 });
      expect(u).toMatchObject({ operations: 4, complete: true, unreadable: 0 });
      expect(u.spaces).toEqual([
        { spaceId: "team-a", calls: 3, errors: 1, inputTokens: 11, outputTokens: 4 },
        { spaceId: "team-b", calls: 1, errors: 0, inputTokens: 0, outputTokens: 0 },
      ]);
      expect(u.actors).toEqual([
        { actorId: "key-1", spaceId: "team-a", calls: 2, errors: 1, inputTokens: 10, outputTokens: 3 },
        { actorId: "key-2", spaceId: "team-b", calls: 1, errors: 0, inputTokens: 0, outputTokens: 0 },
      ]);
    });

    it("keeps a guest log's counts (and the payload store's ref of its lines) with an audit record, through every write path", async () => {
      const s = await open();
      const logs = { count: 3, dropped: 2, levels: { debug: 0, info: 2, warn: 0, error: 1 }, ref: "f".repeat(64) };
      await s.insert(record("op-1", { phase: "operation", realStatus: "running" }), [{ ...audit("op-1", "logged", 1), logs }]);
      await s.update("op-1", { phase: "after", realStatus: "succeeded" }, undefined, [{ ...audit("op-1", "quiet", 2), logs: null }]);
      await s.appendAudit([{ ...audit("op-1", "appended", 3), logs: { count: 1, dropped: 0, levels: { debug: 1, info: 0, warn: 0, error: 0 } } }]);
      const rows = await s.audit({ operationId: "op-1" });
      expect(rows.map((a) => [a.bindingId, a.logs ?? null])).toEqual([
        ["logged", logs], ["quiet", null], ["appended", { count: 1, dropped: 0, levels: { debug: 1, info: 0, warn: 0, error: 0 } }],
      ]);
    });

    it("deletes real results past their retention", async () => {
      const s = await open();
      await s.insert(record("op"));
      await s.update("op", { phase: "after", realStatus: "succeeded" }, RESULT);
      expect(await s.pruneResults(Date.now() - 25 * 60 * 60 * 1000)).toBe(0);
      expect(await s.pruneResults(Date.now() + 25 * 60 * 60 * 1000)).toBe(1);
      expect(await s.result("op")).toBeUndefined();
    });
  });
}

it("a SQLite records file keeps its records across a reopen", async () => {
  const file = tempFile("reopen");
  const a = openSqliteRecords(file);
  await a.insert(record("kept"));
  await a.close();
  const b = track(openSqliteRecords(file));
  expect((await b.get("kept"))?.operationId).toBe("kept");
});

for (const [name, make] of enginesWith("payloads")) {
  it(`the ${name} payload store forgets content after its retention period`, async () => {
    const p: PayloadStore = track(await make({ retentionMs: 1_000 }));
    await p.put("ref", { text: "full content" }, 0);
    expect(await p.get("ref", 999)).toEqual({ text: "full content" });
    expect(await p.get("ref", 1_000)).toBeUndefined();
    expect(await p.prune(1_000)).toBe(1);
  });
}
