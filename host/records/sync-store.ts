/**
 * The records storage contract. Synchronous on purpose, like the registry's store: the
 * "running" record must be on disk before the wrapped operation is called, and a
 * synchronous SQLite write guarantees that ordering without an await on the hot path.
 * Implementations: {@link createMemoryRecords} and {@link openSqliteRecords}, one contract
 * suite (test/records/store.contract.test.ts).
 */
import type { AuditQuery, AuditRecord, OperationQuery, OperationRecord, StoredResult } from "./types.js";

/** Transitional: the synchronous contract, until every caller uses the async one in store.ts. */
export interface SyncOperationStore {
  /** Writes a new record; an existing id is replaced (a crashed host's id is never reused by a live one: ids are UUIDs). */
  insert(record: OperationRecord): void;
  /** Merges `changes` into the record; with `result`, stores the real result in the same transaction. */
  update(operationId: string, changes: Partial<OperationRecord>, result?: StoredResult): void;
  get(operationId: string): OperationRecord | undefined;
  /**
   * The stored real result: present once the real execution succeeded (or a hook served
   * one) and while the operation can resume; deleted when it finishes or its retention ends.
   */
  result(operationId: string): StoredResult | undefined;
  /** Deletes real results stored at or before `now` minus the retention; returns how many. Runs by itself on a timer too. */
  pruneResults(now?: number): number;
  /** Newest first. */
  list(query?: OperationQuery): OperationRecord[];
  /** Marks every `running` record `unknown` (run once at start-up); returns their ids. */
  markInterrupted(now?: number): string[];
  appendAudit(records: readonly AuditRecord[]): void;
  /** Oldest first. */
  audit(query?: AuditQuery): AuditRecord[];
  close(): void;
}

/**
 * The opt-in protected payload store: full content by digest, for deployments that must
 * be able to show or recover payloads. Every entry expires after the retention period.
 */
export interface SyncPayloadStore {
  readonly retentionMs: number;
  /** Stores `value` under `ref` (its digest) until now + retention. */
  put(ref: string, value: unknown, now?: number): void;
  get(ref: string, now?: number): unknown | undefined;
  /** Deletes expired entries; returns how many. */
  prune(now?: number): number;
  close(): void;
}
