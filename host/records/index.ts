/** Operation records, resume and hook audit (issue #8). */
export type { OperationStore, PayloadStore, ClaimResult } from "./store.js";
export { createMemoryRecords, createMemoryPayloads } from "./memory-store.js";
export { openSqliteRecords, openSqlitePayloads, type SqliteRecordsOptions } from "./sqlite-store.js";
export type { ResumeOptions } from "../engine/resume.js";
export { digestOf, createDigester, type Digester } from "../pipeline/digest.js";
export type * from "./types.js";
