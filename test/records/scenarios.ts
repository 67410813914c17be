/**
 * The calls and releases of the crash tests, shared by the child process that gets killed
 * (crash-child.ts, run compiled) and the test that restarts and resumes (crash.test.ts).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ChatRequest, ChatResponse } from "../../host/boundary/chat.js";
import type { ToolCall } from "../../host/boundary/tool.js";
import type { ReleaseInput } from "../../host/pipeline/release.js";
import { openSqliteRecords } from "../../host/records/sqlite-store.js";
import type { OperationStore } from "../../host/records/store.js";

/** Placed in every input: no audit record and no byte of the database may contain it. */
export const MARKER = "MARKER-5c7f-never-stored";

export type Scenario = "tool" | "chat" | "fail" | "running" | "stream";

export const ctx = { spaceId: "space-1", runId: "run-1", actorId: "user-1" };
export const call: ToolCall = { toolId: "orders.search", name: "search", schema: { type: "object" }, arguments: { q: MARKER }, callId: "call-1" };
export const TOOL_RESULT = "found 3 orders";
export const request: ChatRequest = { model: "m1", messages: [{ role: "user", content: `find ${MARKER}` }] };
export const answer: ChatResponse = { content: "the answer", tool_calls: [], finish_reason: "stop", usage: { input_tokens: 11, output_tokens: 7 }, provider_request_id: "req-42" };

const guest = "contract@1.0.0";

/**
 * Revision 1 is what the first process ran. "pause" is an in-process hook: in the child it
 * blocks (the crash window between the real call and the end of the after chain), in the
 * restarted host it continues, so the same release resumes there.
 */
export function release(scenario: Scenario, revision: 1 | 2): ReleaseInput {
  const chat = scenario === "chat" || scenario === "stream";
  const point = chat ? "model.chat.after" as const : "tool.after" as const;
  const before = { id: "audit-before", hookRef: guest, point: chat ? "model.chat.before" as const : "tool.before" as const, config: { mode: "continue", tag: "seen" }, timeoutMs: 5_000 };
  const append = { id: "append-x", hookRef: guest, point, config: { mode: "append", tag: "-x" }, timeoutMs: 5_000 };
  if (scenario === "fail") {
    return revision === 1
      ? { revision, bindings: [before, { id: "broken", hookRef: guest, point, config: { mode: "abort" }, failurePolicy: "fail-closed" }] }
      : { revision, bindings: [before, append] };
  }
  return { revision, bindings: [before, append, { id: "pause", hookRef: "pause", point, timeoutMs: 60_000 }] };
}

/** The wrapped tool's or model's own call counter, kept on disk so it survives the kill. */
export function bump(dir: string, operationId: string): void {
  writeFileSync(join(dir, "op-id"), operationId);
  writeFileSync(join(dir, "calls"), String(calls(dir) + 1));
}

export function calls(dir: string): number {
  const file = join(dir, "calls");
  return existsSync(file) ? Number(readFileSync(file, "utf8")) : 0;
}

/** The digest key the crashed child and the test share, so the test can check the child's refs. */
export const DIGEST_SECRET = "crash-test-digest-secret-0123456789";

/**
 * The records store of a host in these tests: a SQLite file's path, or a postgres:// URL
 * (the hosts then share that database, as a fleet does).
 */
export async function openRecordsAt(location: string): Promise<{ records: OperationStore; close(): Promise<void> }> {
  if (/^postgres(ql)?:\/\//.test(location)) {
    const { openPostgresStores } = await import("../../host/registry/postgres-stores.js");
    // A fleet's hosts share the key that seals their records (and keys their digests).
    const stores = await openPostgresStores(location, { max: 2, key: DIGEST_SECRET });
    return { records: stores.records, close: () => stores.close() };
  }
  const records = openSqliteRecords(location);
  return { records, close: () => records.close() };
}

/** The lease a child host takes on its operations (SLUICE_TEST_LEASE_MS), when the test sets one. */
export const leaseOption = (): { operationLeaseMs?: number } => (process.env.SLUICE_TEST_LEASE_MS ? { operationLeaseMs: Number(process.env.SLUICE_TEST_LEASE_MS) } : {});
