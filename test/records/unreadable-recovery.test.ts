/**
 * Bad input loses nothing else: one unfinished operation whose sealed record was
 * changed at rest does not stop start-up recovery. Every other operation is recovered (the
 * running one becomes unknown, the resumable one resumes), the damaged one is reported by
 * its id with RECORD_UNREADABLE and no content, is left exactly as it was, and resuming it
 * is refused. A host started with another key still refuses to start (nothing opens).
 */
import Database from "better-sqlite3";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../host/index.js";
import type { ErrorData } from "../../host/errors/sluice-error.js";
import { openSqliteRecords } from "../../host/records/sqlite-store.js";
import type { OperationStore } from "../../host/records/store.js";
import type { OperationRecord, StoredResult } from "../../host/records/types.js";
import { openPostgresStores } from "../../host/registry/postgres-stores.js";
import { secretForms } from "../helpers/at-rest.js";
import { testDatabaseUrl } from "../helpers/postgres.js";
import { tempDir } from "../registry/fixtures.js";

const SECRET = "transfer PIN is 4821";
const KEY_A = "a".repeat(64);
const KEY_B = "b".repeat(64);

const record = (id: string, over: Partial<OperationRecord>): OperationRecord => ({
  operationId: id, parentOperationId: null, idempotencyKey: id,
  identity: { operation: "tool", beforePoint: "tool.before", afterPoint: "tool.after", ctx: { spaceId: "s" }, target: { instance: "main", spaceId: "s", toolId: "t" }, callId: "c" },
  point: "tool.after", phase: "after", realStatus: "succeeded", revision: 0, resumedRevision: null, resumes: 0, completed: [],
  finalInputRef: null, realResultRef: null, effectiveOutputRef: null, usage: null, providerRequestId: null, attempts: 1, shortCircuitedBy: null,
  artifacts: [{ note: SECRET }], outcome: null, error: null, createdAt: 1_000, updatedAt: 1_000, owner: "a-host-that-is-gone", ...over,
});
const RESULT: StoredResult = { real: { status: "ok", view: SECRET }, afterPayload: { status: "ok", view: SECRET, call_id: "c" }, before: { ran: false, reached: -1, carries: {} } };

interface Engine {
  open(key: string): Promise<{ records: OperationStore; close(): Promise<void> }>;
  /** Runs SQL on the raw database (`?` placeholders). */
  exec(sql: string, ...args: unknown[]): Promise<Record<string, unknown>[]>;
}

function sqlite(): Engine {
  const file = path.join(tempDir("sluice-unreadable-"), "records.db");
  return {
    async open(key) { const records = openSqliteRecords(file, { key }); return { records, close: () => records.close() }; },
    async exec(sql, ...args) {
      const db = new Database(file);
      try { const st = db.prepare(sql); return st.reader ? st.all(...args) as Record<string, unknown>[] : (st.run(...args), []); } finally { db.close(); }
    },
  };
}

function postgres(url: Promise<string>): Engine {
  return {
    async open(key) { const stores = await openPostgresStores(await url, { max: 2, key }); return { records: stores.records, close: () => stores.close() }; },
    async exec(sql, ...args) {
      const pg = (await import("pg")).default;
      const client = new pg.Client({ connectionString: await url });
      await client.connect();
      let i = 0;
      try { return (await client.query(sql.replace(/\?/g, () => `$${++i}`), args)).rows; } finally { await client.end(); }
    },
  };
}

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => { for (const s of opened.splice(0).reverse()) await s.close(); });

for (const [name, make] of [["SQLite", sqlite], ["PostgreSQL", () => postgres(testDatabaseUrl("unreadable-recovery"))]] as const) {
  describe(`start-up recovery with one damaged record: ${name}`, () => {
    const hostOn = (records: OperationStore, reported: { operationId: string; error: ErrorData }[]): Host => {
      const host = createHost({ records, workers: 1, spareWorkers: 0, onRecordUnreadable: (e) => reported.push(e) });
      opened.push(host);
      return host;
    };

    it("recovers every other operation, reports the damaged one by id with RECORD_UNREADABLE and no content, leaves it as it was and never resumes it", async () => {
      const engine = make();
      const first = await engine.open(KEY_A);
      await first.records.insert(record("op-running", { phase: "operation", realStatus: "running" }));
      await first.records.insert(record("op-damaged", { phase: "operation", realStatus: "running" }));
      await first.records.insert(record("op-resumable", {}));
      await first.records.update("op-resumable", {}, RESULT);
      await first.close();
      const [row] = await engine.exec("SELECT record FROM operation_records WHERE operation_id = ?", "op-damaged");
      const text = String(row!.record);
      const changed = text.slice(0, -6) + (text.at(-6) === "A" ? "B" : "A") + text.slice(-5);
      await engine.exec("UPDATE operation_records SET record = ? WHERE operation_id = ?", changed, "op-damaged");

      const again = await engine.open(KEY_A);
      opened.push(again);
      const reported: { operationId: string; error: ErrorData }[] = [];
      const host = hostOn(again.records, reported);
      expect(await host.recover()).toEqual(["op-running"]);
      expect(reported).toEqual([{ operationId: "op-damaged", error: expect.objectContaining({ code: "RECORD_UNREADABLE", details: expect.objectContaining({ column: "operation_records.record", id: "op-damaged" }) }) }]);
      for (const form of secretForms(SECRET)) expect(JSON.stringify(reported)).not.toContain(form.toString());
      // Left exactly as it was, for an operator to see; the others were recovered.
      const after = await engine.exec("SELECT operation_id, phase, real_status, owner, record FROM operation_records ORDER BY operation_id");
      expect(after.find((r) => r.operation_id === "op-damaged")).toEqual({ operation_id: "op-damaged", phase: "operation", real_status: "running", owner: "a-host-that-is-gone", record: changed });
      expect(await again.records.get("op-running")).toMatchObject({ realStatus: "unknown", owner: null });
      // Never run again blindly: resuming it is refused with the same code; the resumable one resumes.
      const refused = await host.resume("op-damaged");
      expect(!refused.ok && refused.error.code).toBe("RECORD_UNREADABLE");
      const resumed = await host.resume("op-resumable");
      expect(resumed).toMatchObject({ ok: true, output: { status: "ok", view: SECRET } });
    }, 60_000);

    it("still refuses to start when no unfinished record opens with this host's key (the wrong key, not damage)", async () => {
      const engine = make();
      const first = await engine.open(KEY_A);
      await first.records.insert(record("op-1", { phase: "operation", realStatus: "running" }));
      await first.close();
      const other = await engine.open(KEY_B);
      opened.push(other);
      const reported: unknown[] = [];
      const err = await hostOn(other.records, reported as never).recover().then(() => undefined, (e: unknown) => e);
      expect(err).toMatchObject({ code: "RECORD_UNREADABLE", details: { id: "op-1", column: "operation_records.record", hostKeyId: expect.any(String) } });
      expect(reported).toEqual([]);
    }, 60_000);
  });
}
