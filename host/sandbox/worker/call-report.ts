/**
 * A guest invocation's report, from what the guest returned and what the worker measured.
 * Built key by key rather than as `{ ...result, logs, ... }`: on Node 20 (V8 11.3) an object
 * spread followed by keys its source lacks gets a new hidden class every time, and at tens
 * of thousands of calls a second those maps made most of what survived each young-generation
 * collection (host/objects/with-keys.ts).
 */
import type { Outcome } from "../../../abi/envelope.js";
import type { ErrorData } from "../../errors/sluice-error.js";
import type { CallReport, LogLine } from "../protocol.js";

export type GuestResult = { ok: true; outcome: Outcome; reply?: unknown; replyBytes?: Uint8Array } | { ok: false; error: ErrorData };

export interface CallFacts { logs: LogLine[]; droppedLogs: number; durationMs: number; memoryBytes: number; fuel: number }

export function callReport(r: GuestResult, f: CallFacts): CallReport {
  if (!r.ok) return { ok: false, error: r.error, logs: f.logs, droppedLogs: f.droppedLogs, durationMs: f.durationMs, memoryBytes: f.memoryBytes, fuel: f.fuel };
  // A raw call (tests, the vectors) carries the reply too; the two shapes are two stable classes.
  return r.replyBytes === undefined
    ? { ok: true, outcome: r.outcome, logs: f.logs, droppedLogs: f.droppedLogs, durationMs: f.durationMs, memoryBytes: f.memoryBytes, fuel: f.fuel }
    : { ok: true, outcome: r.outcome, logs: f.logs, droppedLogs: f.droppedLogs, durationMs: f.durationMs, memoryBytes: f.memoryBytes, fuel: f.fuel, reply: r.reply, replyBytes: r.replyBytes };
}
