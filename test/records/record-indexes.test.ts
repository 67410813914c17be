/**
 * The records' indexes (migration 5, "lean record indexes"): a database written before it
 * keeps every record readable and recoverable after it, and recovery and listing still use
 * an index instead of reading every record. Fewer indexes are fewer pages in each write's
 * transaction (test/bench/RESULTS.md: ~11 → ~8 WAL frames an operation).
 */
import { expect, it } from "vitest";
import { openSqliteRecords } from "../../host/index.js";
import { RECORDS_MIGRATIONS } from "../../host/records/migrations.js";
import { createSealer } from "../../host/records/sealed.js";
import { RECORD } from "../../host/records/sqlite-record-writes.js";
import { openSqlite } from "../../host/storage/sqlite-open.js";
import { tempFile } from "../helpers/store-engines.js";
import { operationRecord } from "../helpers/operation-record.js";

const KEY = "k".repeat(32);
const indexes = (file: string) => {
  const db = openSqlite(file, { what: "records test" });
  try {
    return (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'operation_records' AND sql IS NOT NULL ORDER BY name").pluck().all() as string[]);
  } finally { db.close(); }
};

it("a records database written under schema 4 keeps its records, finds what was cut off and lists by status after the upgrade", async () => {
  const file = tempFile("record-indexes");
  const v4 = { ...RECORDS_MIGRATIONS, migrations: { ...RECORDS_MIGRATIONS.migrations, sqlite: RECORDS_MIGRATIONS.migrations.sqlite.filter((m) => m.version <= 4) } };
  const old = openSqlite(file, { what: "records test", migrations: [v4] });
  const sealer = createSealer(KEY);
  const put = old.prepare("INSERT INTO operation_records (operation_id, phase, real_status, created_at, owner, record) VALUES (?, ?, ?, ?, ?, ?)");
  const rows = [
    operationRecord("done-1", { phase: "finished", realStatus: "succeeded", createdAt: 1_000 }),
    operationRecord("cut-off", { phase: "operation", realStatus: "running", createdAt: 2_000, owner: "host-gone" }),
    operationRecord("done-2", { phase: "finished", realStatus: "failed", createdAt: 3_000 }),
    operationRecord("waiting", { phase: "before", realStatus: "not_started", createdAt: 4_000 }),
  ];
  for (const r of rows) put.run(r.operationId, r.phase, r.realStatus, r.createdAt, r.owner ?? null, sealer.seal(r, { column: RECORD, id: r.operationId }));
  old.close();
  expect(indexes(file)).toEqual(["operation_records_created", "operation_records_owner", "operation_records_status"]);

  const store = openSqliteRecords(file, { key: KEY });
  try {
    expect(indexes(file)).toEqual(["operation_records_created", "operation_records_open"]);
    expect((await store.list()).map((r) => r.operationId)).toEqual(["waiting", "done-2", "cut-off", "done-1"]);
    expect((await store.list({ realStatus: "failed" })).map((r) => r.operationId)).toEqual(["done-2"]);
    expect((await store.list({ phase: "finished" })).map((r) => r.operationId)).toEqual(["done-2", "done-1"]);
    // The owner's process is gone (no lease): its running call is cut off and reads unknown.
    expect(await store.markInterrupted("host-new")).toEqual(["cut-off"]);
    expect((await store.get("cut-off"))?.realStatus).toBe("unknown");
    // An operation opened after the upgrade enters the open index and leaves it when it finishes.
    await store.insert(operationRecord("new-1", { createdAt: 5_000 }));
    await store.update("new-1", { phase: "finished", realStatus: "succeeded" });
    expect((await store.get("new-1"))?.phase).toBe("finished");
  } finally { await store.close(); }

  const db = openSqlite(file, { what: "records test" });
  try {
    const plan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join("; ");
    // Recovery at start reads the unfinished records only, not the whole table.
    expect(plan("SELECT operation_id, record FROM operation_records WHERE phase != 'finished' AND (owner IS NOT NULL OR real_status = 'running')")).toMatch(/USING INDEX operation_records_open/);
    expect(plan("SELECT operation_id, record FROM operation_records WHERE real_status = 'x' ORDER BY created_at DESC, rowid DESC LIMIT 10")).toMatch(/USING INDEX operation_records_created/);
    expect(db.prepare("SELECT count(*) FROM operation_records INDEXED BY operation_records_open WHERE phase != 'finished'").pluck().get()).toBe(2);
  } finally { db.close(); }
});
