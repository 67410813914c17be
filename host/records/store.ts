/**
 * The records storage contract, one for every engine: memory (memory-store.ts), SQLite
 * (sqlite-store.ts), PostgreSQL (the `pg` store). Every method returns a Promise; a write
 * has happened (is durable, on engines that persist) when its promise resolves. The
 * journal (journal.ts) awaits the "running" update before the wrapped call starts, and
 * keeps one operation's writes in order itself, so an engine may use a pool.
 *
 * Operations across hosts: every record carries the `owner` running it (a host id), and
 * every host renews a lease ({@link OperationStore.heartbeat}). An owner is live at `now`
 * when its lease ends after `now` (an engine may know more: every process on one SQLite
 * file runs on one machine, so SQLite also counts an owner whose process is gone as not live). Live owners' operations are never marked interrupted and
 * never resumed by another host ({@link OperationStore.claim} is atomic: SQLite in one
 * IMMEDIATE transaction; PostgreSQL with a conditional `UPDATE ... WHERE owner IS NULL OR
 * owner NOT IN (live owners)` or `SELECT ... FOR UPDATE` in one transaction).
 *
 * Engines that persist seal every value that can carry content (the record, the stored
 * result, a payload) before writing it (sealed.ts): no call's content reaches a file or a
 * table in plaintext, and a value that does not open is RECORD_UNREADABLE.
 *
 * One contract suite runs against every engine: test/records/store.contract.test.ts over
 * test/helpers/store-engines.ts.
 */
import type { AuditQuery, AuditRecord, OperationQuery, OperationRecord, StoredResult } from "./types.js";
import type { UnreadableRecord } from "./recovery-rows.js";

/** What {@link OperationStore.claim} answers. */
export type ClaimResult = "claimed" | "busy" | "missing";

/** Where a host records its operations (for resume and audit); memory and SQLite implement it. */
export interface OperationStore {
  /**
   * Writes a new record (its `owner` included); an existing id is replaced (ids are UUIDs, a
   * live host never reuses a dead one's). `audit` rows and the real `result` (when the record
   * is not finished) are written in the same transaction: all of it lands, or none.
   */
  insert(record: OperationRecord, audit?: readonly AuditRecord[], result?: StoredResult): Promise<void>;
  /**
   * Merges `changes` into the record (OPERATION_NOT_FOUND when absent); with `result`, stores
   * the real result, and appends `audit` rows, in the same transaction. A record that becomes
   * finished loses its stored result.
   */
  update(operationId: string, changes: Partial<OperationRecord>, result?: StoredResult, audit?: readonly AuditRecord[]): Promise<void>;
  get(operationId: string): Promise<OperationRecord | undefined>;
  /**
   * The stored real result: present once the real execution succeeded (or a hook served
   * one) and while the operation can resume; deleted when it finishes or its retention ends.
   */
  result(operationId: string): Promise<StoredResult | undefined>;
  /** Deletes real results stored at or before `now` minus the retention; returns how many. Runs by itself on a timer too. */
  pruneResults(now?: number): Promise<number>;
  /**
   * Newest first. A record that does not open (RECORD_UNREADABLE: changed or damaged at
   * rest) is left out and told to `unreadable` by its id, with no content; every other
   * record is listed (`limit` counts both). Fails as a whole only where start-up recovery does: not one row opens
   * and some are sealed under another key (recovery-rows.ts).
   */
  list(query?: OperationQuery, unreadable?: UnreadableRecord): Promise<OperationRecord[]>;
  /**
   * Start-up recovery for host `owner`: every unfinished record owned by `owner` itself (a
   * previous run of this host) or by an owner that is not live at `now` (or by nobody, on
   * records older than leases) is released (`owner` null); those `running` become
   * `unknown`. Returns the ids that became unknown. Records of live peers are untouched.
   * A record that does not open (RECORD_UNREADABLE) is left untouched and told to
   * `unreadable`; the others are recovered all the same (recovery-rows.ts).
   */
  markInterrupted(owner: string, now?: number, unreadable?: UnreadableRecord): Promise<string[]>;
  /** Says `owner` is alive until `until` (epoch ms). Hosts call it every third of their lease. */
  heartbeat(owner: string, until: number): Promise<void>;
  /** Ends `owner`'s lease at once (a host closing): its operations are free for others. */
  retire(owner: string): Promise<void>;
  /**
   * Takes `operationId` for `owner`, atomically: "claimed" when nobody live holds it (its
   * owner is null or not live at `now`); "busy" when a live owner holds it, `owner` itself
   * included (two resumes in one host are refused too); "missing" when there is no record.
   */
  claim(operationId: string, owner: string, now?: number): Promise<ClaimResult>;
  appendAudit(records: readonly AuditRecord[]): Promise<void>;
  /** Oldest first. */
  audit(query?: AuditQuery): Promise<AuditRecord[]>;
  close(): Promise<void>;
}

/**
 * The opt-in protected payload store: full content by digest, for deployments that must
 * be able to show or recover payloads. Every entry expires after the retention period.
 */
export interface PayloadStore {
  readonly retentionMs: number;
  /** Stores `value` under `ref` (its digest) until now + retention. */
  put(ref: string, value: unknown, now?: number): Promise<void>;
  get(ref: string, now?: number): Promise<unknown | undefined>;
  /** Deletes expired entries; returns how many. */
  prune(now?: number): Promise<number>;
  close(): Promise<void>;
}
