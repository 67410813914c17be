/**
 * The records' WAL is truncated after a real result is deleted, while the store stays open
 * (host/records/sqlite-wal-thread.ts runs it on a thread of its own), and once more at close;
 * and checkpointed on that thread as it grows, never by the store's own connection.
 */
import { existsSync, statSync, writeFileSync } from "node:fs";
import { expect, it } from "vitest";
import { openSqliteRecords } from "../../host/index.js";
import { WAL_LIMIT_BYTES } from "../../host/records/sqlite-wal-thread.js";
import { tempFile } from "../helpers/store-engines.js";
import { operationRecord, STORED_RESULT } from "../helpers/operation-record.js";
import { runToExit } from "../helpers/child.js";
import { until } from "../helpers/until.js";

const record = operationRecord;
const RESULT = STORED_RESULT;
// The last connection to close removes the WAL file: nothing left is none.
const walBytes = (file: string) => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);

it("truncates the WAL soon after a finished operation's result is deleted, while the store stays open, and again at close", async () => {
  const file = tempFile("wal-scrub");
  const store = openSqliteRecords(file, { key: "k".repeat(32) });
  for (let i = 0; i < 20; i++) {
    await store.insert(record(`op-${i}`));
    await store.update(`op-${i}`, { phase: "after", realStatus: "succeeded" }, RESULT);
    await store.update(`op-${i}`, { phase: "finished", owner: null });
  }
  expect(walBytes(file)).toBeGreaterThan(0);
  await until(() => walBytes(file) === 0, 10_000);
  expect(walBytes(file)).toBe(0);
  expect(await store.result("op-3")).toBeUndefined();
  // Writes go on after (and during) the thread's truncation.
  await store.insert(record("later"));
  await store.update("later", { phase: "after", realStatus: "succeeded" }, RESULT);
  await store.update("later", { phase: "finished", owner: null });
  expect(walBytes(file)).toBeGreaterThan(0);
  await store.close();
  expect(walBytes(file)).toBe(0);
  const again = openSqliteRecords(file, { key: "k".repeat(32) });
  expect((await again.list()).length).toBe(21);
  await again.close();
});

it("keeps the WAL bounded by checkpoints on its thread while the store's own connection runs none", async () => {
  const file = tempFile("wal-checkpoint");
  const store = openSqliteRecords(file, { key: "k".repeat(32) });
  let largest = 0;
  for (let i = 0; i < 5000; i++) {
    await store.insert(record(`op-${i}`));
    await store.update(`op-${i}`, { phase: "finished", owner: null });
    if (i % 50 === 0) largest = Math.max(largest, walBytes(file));
  }
  largest = Math.max(largest, walBytes(file));
  // Without checkpoints 5,000 operations leave about 170 MB of WAL.
  expect(largest).toBeGreaterThan(0);
  expect(largest).toBeLessThan(4 * WAL_LIMIT_BYTES);
  expect((await store.list({ limit: 6000 })).length).toBe(5000);
  await store.close();
});

it("does not keep a process alive whose records store was left open", async () => {
  const script = `
    import { openSqliteRecords } from ${JSON.stringify(new URL("../../dist/host/records/sqlite-store.js", import.meta.url).href)};
    const store = openSqliteRecords(${JSON.stringify(tempFile("left-open"))}, { key: "k".repeat(32) });
    console.log("opened", typeof store.insert);
  `;
  // Run as a file: a script given with -e exited even when the thread kept a file's process alive.
  const file = `${tempFile("left-open-script")}.mjs`;
  writeFileSync(file, script);
  const { out, code } = await runToExit([file]);
  expect(out.trim()).toBe("opened function");
  expect(code).toBe(0);
});
