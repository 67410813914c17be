/** Records in memory: for tests and services that want audit and in-process resume without durability. */
import { SluiceError } from "../errors/sluice-error.js";
import type { ClaimResult, OperationStore, PayloadStore } from "./store.js";
import type { AuditQuery, AuditRecord, OperationQuery, OperationRecord, StoredResult } from "./types.js";
import { withChanges, withKeys } from "../objects/with-keys.js";

const DEFAULT_LIMIT = 1000;

/**
 * An operation store in memory: for tests and hosts that need no resume across restarts.
 * @example const host = createHost({ records: createMemoryRecords() });
 */
export function createMemoryRecords(options: { resultRetentionMs?: number } = {}): OperationStore {
  const retentionMs = options.resultRetentionMs ?? 24 * 60 * 60 * 1000;
  const records = new Map<string, OperationRecord>();
  const results = new Map<string, StoredResult & { storedAt: number }>();
  const leases = new Map<string, number>();
  const audit: AuditRecord[] = [];
  let seq = 0;
  // Copies in and out, so callers cannot change what was recorded (as with a database).
  const copy = <T>(v: T): T => structuredClone(v);
  const live = (owner: string, now: number) => (leases.get(owner) ?? -Infinity) > now;
  const append = (rows: readonly AuditRecord[]) => { for (const row of rows) audit.push(withKeys(copy(row), { seq: ++seq })); };
  // Each method does its work before it returns, as one step: nothing interleaves with it.
  const now = <T>(fn: () => T): Promise<T> => { try { return Promise.resolve(fn()); } catch (err) { return Promise.reject(err); } };
  return {
    insert: (record, rows = [], result) => now(() => {
      records.set(record.operationId, copy(record));
      if (result && record.phase !== "finished") results.set(record.operationId, withKeys(copy(result), { storedAt: Date.now() }));
      append(rows);
    }),
    update: (id, changes, result, rows = []) => now(() => {
      const r = records.get(id);
      if (!r) throw new SluiceError("OPERATION_NOT_FOUND", `no operation record ${id}`, { operationId: id });
      const next = withChanges(r, copy(changes));
      records.set(id, next);
      if (result) results.set(id, withKeys(copy(result), { storedAt: Date.now() }));
      if (next.phase === "finished") results.delete(id);
      append(rows);
    }),
    get: (id) => now(() => { const r = records.get(id); return r && copy(r); }),
    result: (id) => now(() => { const r = results.get(id); if (!r) return undefined; const { storedAt: _s, ...stored } = r; return copy(stored); }),
    pruneResults: (at = Date.now()) => now(() => {
      let n = 0;
      for (const [id, r] of results) if (r.storedAt <= at - retentionMs) { results.delete(id); n++; }
      return n;
    }),
    list: (q: OperationQuery = {}) => now(() => [...records.values()]
      .filter((r) => (q.phase === undefined || r.phase === q.phase) && (q.realStatus === undefined || r.realStatus === q.realStatus))
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, q.limit ?? DEFAULT_LIMIT)
      .map(copy)),
    markInterrupted: (owner, at = Date.now()) => now(() => {
      const ids: string[] = [];
      for (const r of records.values()) {
        if (r.phase === "finished" || r.phase === "awaiting" || (r.owner != null && r.owner !== owner && live(r.owner, at))) continue;
        r.owner = null;
        if (r.realStatus === "running") { r.realStatus = "unknown"; r.updatedAt = at; ids.push(r.operationId); }
      }
      return ids;
    }),
    heartbeat: (owner, until) => now(() => { leases.set(owner, until); }),
    retire: (owner) => now(() => { leases.delete(owner); }),
    claim: (id, owner, at = Date.now()) => now((): ClaimResult => {
      const r = records.get(id);
      if (!r) return "missing";
      if (r.owner != null && (r.owner === owner || live(r.owner, at))) return "busy";
      r.owner = owner;
      return "claimed";
    }),
    appendAudit: (rows) => now(() => append(rows)),
    audit: (q: AuditQuery = {}) => now(() => audit
      .filter((a) => (q.operationId === undefined || a.operationId === q.operationId) && (q.bindingId === undefined || a.bindingId === q.bindingId)
        && (q.from === undefined || a.at >= q.from) && (q.to === undefined || a.at < q.to))
      .slice(0, q.limit ?? DEFAULT_LIMIT)
      .map(copy)),
    close: async () => {},
  };
}

/** A payload store in memory, with the same retention rule as the SQLite one. */
export function createMemoryPayloads(options: { retentionMs: number }): PayloadStore {
  const entries = new Map<string, { value: unknown; expiresAt: number }>();
  return {
    retentionMs: options.retentionMs,
    put: async (ref, value, now = Date.now()) => { entries.set(ref, { value: structuredClone(value), expiresAt: now + options.retentionMs }); },
    get: async (ref, now = Date.now()) => { const e = entries.get(ref); return e && e.expiresAt > now ? structuredClone(e.value) : undefined; },
    prune: async (now = Date.now()) => {
      let n = 0;
      for (const [ref, e] of entries) if (e.expiresAt <= now) { entries.delete(ref); n++; }
      return n;
    },
    close: async () => {},
  };
}
