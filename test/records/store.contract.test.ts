/** One contract, every records store: memory, SQLite in memory, SQLite on a file shared with the registry. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createMemoryPayloads, createMemoryRecords, openSqlitePayloads, openSqliteRecords, type AuditRecord, type OperationRecord, type OperationStore, type PayloadStore } from "../../host/index.js";
import { openSqliteStore } from "../../host/registry/sqlite-store.js";

const dir = mkdtempSync(join(tmpdir(), "sluice-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const record = (id: string, over: Partial<OperationRecord> = {}): OperationRecord => ({
  operationId: id, parentOperationId: null, idempotencyKey: id,
  identity: { operation: "tool", beforePoint: "tool.before", afterPoint: "tool.after", ctx: { spaceId: "s" }, target: { instance: "main", spaceId: "s", toolId: "t" }, callId: "c" },
  point: "tool.before", phase: "before", realStatus: "not_started", revision: 1, resumedRevision: null, resumes: 0, completed: [],
  finalInputRef: null, realResultRef: null, effectiveOutputRef: null, usage: null, providerRequestId: null, attempts: 0, shortCircuitedBy: null,
  outcome: null, error: null, createdAt: 1_000, updatedAt: 1_000, ...over,
});
const audit = (operationId: string, bindingId: string, at: number): AuditRecord => ({
  operationId, bindingId, hookRef: "p@1.0.0", codeSha256: "ab".repeat(32), point: "tool.after", phase: "after", revision: 1, outcome: "continue",
  inputDigest: "1".repeat(64), outputDigest: "1".repeat(64), patchDigest: null, durationMs: 0.5, fuel: 1_234, errorCode: null, at,
});

const stores: [string, () => OperationStore][] = [
  ["memory", createMemoryRecords],
  ["SQLite (:memory:)", () => openSqliteRecords(":memory:")],
  ["SQLite file shared with the registry", () => { const file = join(dir, `shared-${Math.random()}.db`); openSqliteStore(file).close(); return openSqliteRecords(file); }],
];

for (const [name, make] of stores) {
  describe(`records store contract: ${name}`, () => {
    it("keeps a record, merges updates, and stores the real result apart", () => {
      const s = make();
      s.insert(record("op-1"));
      s.update("op-1", { phase: "after", realStatus: "succeeded", realResultRef: "r" }, { real: { n: 1 }, afterPayload: { view: 1 }, before: { ran: false, reached: -1, carries: {} } });
      expect(s.get("op-1")).toMatchObject({ phase: "after", realStatus: "succeeded", realResultRef: "r", revision: 1 });
      expect(s.result("op-1")).toEqual({ real: { n: 1 }, afterPayload: { view: 1 }, before: { ran: false, reached: -1, carries: {} } });
      expect(s.get("missing")).toBeUndefined();
      expect(() => s.update("missing", { phase: "finished" })).toThrow(expect.objectContaining({ code: "OPERATION_NOT_FOUND" }));
      s.close();
    });

    it("lists newest first, filtered by phase and real status", () => {
      const s = make();
      s.insert(record("a", { createdAt: 1 }));
      s.insert(record("b", { createdAt: 2, phase: "after", realStatus: "succeeded" }));
      s.insert(record("c", { createdAt: 3, phase: "operation", realStatus: "running" }));
      expect(s.list().map((r) => r.operationId)).toEqual(["c", "b", "a"]);
      expect(s.list({ phase: "after" }).map((r) => r.operationId)).toEqual(["b"]);
      expect(s.list({ realStatus: "running", limit: 5 }).map((r) => r.operationId)).toEqual(["c"]);
      s.close();
    });

    it("turns every running record into unknown on recovery, and only those", () => {
      const s = make();
      s.insert(record("run", { phase: "operation", realStatus: "running" }));
      s.insert(record("done", { phase: "after", realStatus: "succeeded" }));
      expect(s.markInterrupted(5_000)).toEqual(["run"]);
      expect(s.get("run")).toMatchObject({ realStatus: "unknown", updatedAt: 5_000 });
      expect(s.get("done")!.realStatus).toBe("succeeded");
      expect(s.markInterrupted()).toEqual([]);
      s.close();
    });

    it("queries audit records by operation, binding and time range, oldest first", () => {
      const s = make();
      s.appendAudit([audit("op-1", "b1", 10), audit("op-1", "b2", 20), audit("op-2", "b1", 30)]);
      expect(s.audit({ operationId: "op-1" }).map((a) => a.bindingId)).toEqual(["b1", "b2"]);
      expect(s.audit({ bindingId: "b1" }).map((a) => a.operationId)).toEqual(["op-1", "op-2"]);
      expect(s.audit({ from: 20, to: 30 }).map((a) => a.at)).toEqual([20]);
      expect(s.audit({ limit: 1 })).toHaveLength(1);
      const [first, second] = s.audit();
      expect(first).toMatchObject({ ...audit("op-1", "b1", 10) });
      expect(second!.seq!).toBeGreaterThan(first!.seq!);
      s.close();
    });
  });
}

it("a SQLite records file keeps its records across a reopen", () => {
  const file = join(dir, "reopen.db");
  const a = openSqliteRecords(file);
  a.insert(record("kept"));
  a.close();
  const b = openSqliteRecords(file);
  expect(b.get("kept")?.operationId).toBe("kept");
  b.close();
});

const payloadStores: [string, (retentionMs: number) => PayloadStore][] = [
  ["memory", (retentionMs) => createMemoryPayloads({ retentionMs })],
  ["SQLite", (retentionMs) => openSqlitePayloads(join(dir, `payloads-${Math.random()}.db`), { retentionMs })],
];
for (const [name, make] of payloadStores) {
  it(`the ${name} payload store forgets content after its retention period`, () => {
    const p = make(1_000);
    p.put("ref", { text: "full content" }, 0);
    expect(p.get("ref", 999)).toEqual({ text: "full content" });
    expect(p.get("ref", 1_000)).toBeUndefined();
    expect(p.prune(1_000)).toBe(1);
    p.close();
  });
}
