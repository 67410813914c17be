/**
 * The records writer thread (sqlite-writer.ts): a connection of its own to the records'
 * file, running each batch the store hands it in one IMMEDIATE transaction, each write in a
 * savepoint of its own (savepointEach, as the store's group commit on the main thread).
 * Answers each batch with one outcome per write (or the failure of the whole batch) after
 * the commit: nothing is answered before it is on disk.
 */
import { parentPort, workerData } from "node:worker_threads";
import { SluiceError } from "../errors/sluice-error.js";
import { openSqlite } from "../storage/sqlite-open.js";
import { createSealer } from "./sealed.js";
import { savepointEach } from "./sqlite-group-commit.js";
import { recordWrites, type RecordWrite } from "./sqlite-record-writes.js";
import type { WriterData, WriterReply, ThreadError } from "./sqlite-writer.js";

const data = workerData as WriterData;
const db = openSqlite(data.file, { what: "records store", synchronous: data.synchronous, foreignKeys: true, secureDelete: true, openBusyMs: data.busyMs });
const writes = recordWrites(db, createSealer(data.secret));

// Plain data across the thread: the code a caller matches on, the message, never a stack.
const plain = (err: unknown): ThreadError =>
  err instanceof SluiceError ? { sluice: err.toData() } : { message: (err as Error)?.message ?? String(err), code: (err as { code?: unknown })?.code as string | undefined };

const batch = savepointEach(db);

const port = parentPort!;
port.on("message", (m: { id: number; writes: RecordWrite[] }) => {
  let reply: WriterReply;
  try {
    const outcomes = batch.immediate(m.writes.map((w) => () => writes.run(w)));
    reply = { id: m.id, outcomes: outcomes.map((o) => (o.ok ? { ok: true, dropped: o.value as boolean } : { ok: false, err: plain(o.err) })) };
  } catch (err) {
    reply = { id: m.id, failed: plain(err) };
  }
  port.postMessage(reply);
});
port.postMessage("ready");
