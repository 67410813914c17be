/**
 * SQLite records group the calls of concurrent operations into one transaction
 * (host/records/sqlite-group-commit.ts), with the order and failures of a transaction per call.
 */
import { statSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { openSqliteRecords, type OperationStore } from "../../host/index.js";
import { tempFile } from "../helpers/store-engines.js";
import { operationRecord } from "../helpers/operation-record.js";

const record = operationRecord;

const opened: OperationStore[] = [];
afterEach(async () => { for (const s of opened.splice(0)) await s.close(); });
const open = (file: string) => { const s = openSqliteRecords(file, { key: "k".repeat(32) }); opened.push(s); return s; };
const walBytes = (file: string) => statSync(`${file}-wal`).size;

it("writes the records of 40 concurrent operations in one transaction, not 40", async () => {
  const file = tempFile("group-commit");
  const store = open(file);
  await store.insert(record("warm"));
  const before = walBytes(file);
  await Promise.all(Array.from({ length: 40 }, (_, i) => store.insert(record(`op-${i}`))));
  // A WAL frame is a page (4 KiB) and its header: a commit per insert appends the pages it
  // touched each time (221 frames here); one transaction writes each of them once (17).
  const frames = (walBytes(file) - before) / (4096 + 24);
  expect(frames).toBeLessThan(40);
  expect((await store.list()).length).toBe(41);
});

it("keeps each call's order and failure: a read sees the writes asked before it, a failing update rejects alone", async () => {
  const file = tempFile("group-commit-order");
  const store = open(file);
  const inserted = store.insert(record("a"));
  const updated = store.update("a", { phase: "operation", realStatus: "running", updatedAt: 2_000 });
  const missing = store.update("nope", { phase: "operation", updatedAt: 2_000 });
  const read = store.get("a");
  const other = store.insert(record("b"));
  await inserted;
  await updated;
  await expect(missing).rejects.toMatchObject({ code: "OPERATION_NOT_FOUND" });
  expect(await read).toMatchObject({ phase: "operation", realStatus: "running", updatedAt: 2_000 });
  await other;
  // Committed: another connection to the file (a restarted process) reads both.
  const again = open(file);
  expect((await again.list()).map((r) => r.operationId).sort()).toEqual(["a", "b"]);
});
