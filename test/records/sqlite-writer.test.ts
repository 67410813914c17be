/**
 * SQLite records hand batches of concurrent writes to a writer thread
 * (host/records/sqlite-writer.ts) and keep a lone write on the store's own connection;
 * either way a write is committed when its promise resolves, in the order asked, sealed the
 * same way. The whole records contract also runs with every write on the thread
 * (test/helpers/store-engines.ts).
 */
import { existsSync } from "node:fs";
import { Worker } from "node:worker_threads";
import Database from "better-sqlite3";
import { afterEach, expect, it, vi } from "vitest";
import { openSqliteRecords, type OperationStore } from "../../host/index.js";
import type { RecordWrite } from "../../host/records/sqlite-record-writes.js";
import { tempFile } from "../helpers/store-engines.js";
import { operationRecord, STORED_RESULT } from "../helpers/operation-record.js";
import { until } from "../helpers/until.js";

const record = operationRecord;
const KEY = "k".repeat(32);

const opened: OperationStore[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of opened.splice(0)) await s.close();
});
const open = (file: string, writerThread?: "batches" | "always" | "off") => {
  const s = openSqliteRecords(file, { key: KEY, ...(writerThread ? { writerThread } : {}) });
  opened.push(s);
  return s;
};

/** The batches posted to a writer thread, as they were posted. */
function watchBatches(): RecordWrite[][] {
  const batches: RecordWrite[][] = [];
  const post = Worker.prototype.postMessage;
  vi.spyOn(Worker.prototype, "postMessage").mockImplementation(function (this: Worker, message: unknown, transfer?: readonly import("node:worker_threads").TransferListItem[]) {
    const writes = (message as { writes?: RecordWrite[] } | null)?.writes;
    if (writes) batches.push(writes);
    return post.call(this, message, transfer);
  });
  return batches;
}

it("runs a lone write on the store's connection and a batch of concurrent writes on the thread, committed and in order", async () => {
  const batches = watchBatches();
  const file = tempFile("writer-batches");
  const store = open(file);
  let n = 0;
  // The thread starts with the store; until it is up, batches run on the store's connection.
  expect(await until(async () => {
    await Promise.all([store.insert(record(`warm-${n++}`)), store.insert(record(`warm-${n++}`)), store.insert(record(`warm-${n++}`))]);
    return batches.length > 0;
  })).toBe(true);
  batches.length = 0;

  await store.insert(record("alone"));
  expect(batches).toEqual([]);
  // A new turn of the event loop: its first write may run at once again.
  await new Promise((resolve) => setImmediate(resolve));

  const inserted = Array.from({ length: 20 }, (_, i) => store.insert(record(`op-${i}`), [], STORED_RESULT));
  const updated = store.update("op-3", { phase: "after", realStatus: "succeeded", updatedAt: 2_000 });
  const missing = store.update("nope", { phase: "finished", updatedAt: 2_000 });
  const read = store.get("op-3");
  await Promise.all(inserted);
  await updated;
  await expect(missing).rejects.toMatchObject({ code: "OPERATION_NOT_FOUND", details: { operationId: "nope" } });
  // The read was asked after the update: it sees it.
  expect(await read).toMatchObject({ phase: "after", realStatus: "succeeded", updatedAt: 2_000 });
  // The first of the turn ran on the connection at once; the rest went to the thread together.
  expect(batches.flat().map((w) => (w.op === "insert" ? w.record.operationId : w.op === "update" ? w.operationId : "audit"))).toEqual(
    [...Array.from({ length: 19 }, (_, i) => `op-${i + 1}`), "op-3", "nope"],
  );
  expect(await store.result("op-7")).toEqual(STORED_RESULT);

  // Committed: another connection (a restarted process) reads every row, sealed.
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare("SELECT operation_id, record FROM operation_records WHERE operation_id LIKE 'op-%'").all() as { operation_id: string; record: string }[];
    expect(rows).toHaveLength(20);
    for (const row of rows) expect(row.record.startsWith("s1:")).toBe(true);
  } finally { db.close(); }
});

it("stores a real result as its JSON on either path, whatever a tool returned", async () => {
  class Money { constructor(readonly cents: number) {} toJSON() { return `${this.cents / 100} EUR`; } }
  const real = { when: new Date(Date.UTC(2026, 0, 2)), price: new Money(1250), format: () => "x", bytes: Buffer.from("hi"), gone: undefined };
  const stored = { ...STORED_RESULT, real };
  const expected = JSON.parse(JSON.stringify(stored));
  for (const mode of ["off", "always"] as const) {
    const store = open(tempFile(`writer-json-${mode}`), mode);
    await store.insert(record("op"), [], stored);
    expect(await store.result("op")).toEqual(expected);
    await store.update("op", { phase: "after", updatedAt: 2_000 }, stored);
    expect(await store.result("op")).toEqual(expected);
  }
});

it("when the thread dies with a batch, that batch's writes fail; the next writes commit on the store's connection", async () => {
  const batches: RecordWrite[][] = [];
  let killed = false;
  const post = Worker.prototype.postMessage;
  vi.spyOn(Worker.prototype, "postMessage").mockImplementation(function (this: Worker, message: unknown, transfer?: readonly import("node:worker_threads").TransferListItem[]) {
    const writes = (message as { writes?: RecordWrite[] } | null)?.writes;
    if (writes && !killed) {
      // The batch never reaches the thread: it ends as a crash mid-batch would.
      killed = true;
      batches.push(writes);
      void this.terminate();
      return;
    }
    return post.call(this, message, transfer);
  });
  const store = open(tempFile("writer-dies"), "always");
  const lost = store.insert(record("lost"));
  await expect(lost).rejects.toMatchObject({ code: "STORE_UNAVAILABLE" });
  expect(batches).toHaveLength(1);
  await Promise.all([store.insert(record("a")), store.insert(record("b"))]);
  await store.update("a", { phase: "finished", updatedAt: 3_000 });
  expect(await store.get("a")).toMatchObject({ phase: "finished" });
  expect(await store.get("b")).toMatchObject({ phase: "before" });
  expect(await store.get("lost")).toBeUndefined();
});

it("refuses an unknown writerThread naming the option, before opening the file", () => {
  const file = tempFile("writer-bad-option");
  expect(() => openSqliteRecords(file, { key: KEY, writerThread: "on" as "off" })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", details: { option: "writerThread" } }));
  expect(existsSync(file)).toBe(false);
});

it("a write holding a value the thread cannot receive (a function in the caller's context) runs on the store's connection, stored as JSON sees it", async () => {
  const store = open(tempFile("writer-uncloneable"), "always");
  const base = record("odd");
  const odd = { ...base, identity: { ...base.identity, ctx: { spaceId: "s", tag: () => "x" } } } as unknown as typeof base;
  await Promise.all([store.insert(odd), store.insert(record("plain"))]);
  expect((await store.get("odd"))?.identity.ctx).toEqual({ spaceId: "s" });
  expect(await store.get("plain")).toMatchObject({ operationId: "plain" });
});

it("a thread that died is started again a second later, and batches go to it", async () => {
  const threads = new Set<Worker>();
  let killed = false;
  const post = Worker.prototype.postMessage;
  vi.spyOn(Worker.prototype, "postMessage").mockImplementation(function (this: Worker, message: unknown, transfer?: readonly import("node:worker_threads").TransferListItem[]) {
    if ((message as { writes?: unknown } | null)?.writes) {
      if (!killed) { killed = true; void this.terminate(); return; }
      threads.add(this);
    }
    return post.call(this, message, transfer);
  });
  const store = open(tempFile("writer-restart"), "always");
  await expect(store.insert(record("lost"))).rejects.toMatchObject({ code: "STORE_UNAVAILABLE" });
  let n = 0;
  expect(await until(async () => { await store.insert(record(`after-${n++}`)); return threads.size > 0; }, 5_000)).toBe(true);
  expect(await store.get(`after-${n - 1}`)).toMatchObject({ phase: "before" });
});
