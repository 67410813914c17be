/** Operation records and hook audit (resume runs in host/engine/resume.ts). */
export type { OperationStore, PayloadStore, ClaimResult } from "./store.js";
export { createMemoryRecords, createMemoryPayloads } from "./memory-store.js";
export { openSqliteRecords, openSqlitePayloads, type SqliteRecordsOptions } from "./sqlite-store.js";
export { digestOf, createDigester, type Digester } from "../pipeline/digest.js";
export type * from "./types.js";
export type { SkippedHook, SkipReason } from "../pipeline/skipped-hooks.js";
