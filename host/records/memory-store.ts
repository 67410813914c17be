/** Records in memory: for tests and services that want audit and in-process resume without durability. */
import { SluiceError } from "../errors/sluice-error.js";
import type { SyncOperationStore as OperationStore, SyncPayloadStore as PayloadStore } from "./sync-store.js";
import type { AuditQuery, AuditRecord, OperationQuery, OperationRecord, StoredResult } from "./types.js";

const DEFAULT_LIMIT = 1000;

export function createMemoryRecords(options: { resultRetentionMs?: number } = {}): OperationStore {
  const retentionMs = options.resultRetentionMs ?? 24 * 60 * 60 * 1000;
  const records = new Map<string, OperationRecord>();
  const results = new Map<string, StoredResult & { storedAt: number }>();
  const audit: AuditRecord[] = [];
  let seq = 0;
  // Copies in and out, so callers cannot change what was recorded (as with a database).
  const copy = <T>(v: T): T => structuredClone(v);
  return {
    insert: (record) => { records.set(record.operationId, copy(record)); },
    update: (id, changes, result) => {
      const r = records.get(id);
      if (!r) throw new SluiceError("OPERATION_NOT_FOUND", `no operation record ${id}`, { operationId: id });
      const next = { ...r, ...copy(changes) };
      records.set(id, next);
      if (result) results.set(id, { ...copy(result), storedAt: Date.now() });
      if (next.phase === "finished") results.delete(id);
    },
    get: (id) => { const r = records.get(id); return r && copy(r); },
    result: (id) => { const r = results.get(id); if (!r) return undefined; const { storedAt: _s, ...stored } = r; return copy(stored); },
    pruneResults: (now = Date.now()) => {
      let n = 0;
      for (const [id, r] of results) if (r.storedAt <= now - retentionMs) { results.delete(id); n++; }
      return n;
    },
    list: (q: OperationQuery = {}) => [...records.values()]
      .filter((r) => (q.phase === undefined || r.phase === q.phase) && (q.realStatus === undefined || r.realStatus === q.realStatus))
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, q.limit ?? DEFAULT_LIMIT)
      .map(copy),
    markInterrupted: (now = Date.now()) => {
      const ids: string[] = [];
      for (const r of records.values()) if (r.realStatus === "running") { r.realStatus = "unknown"; r.updatedAt = now; ids.push(r.operationId); }
      return ids;
    },
    appendAudit: (rows) => { for (const row of rows) audit.push({ ...copy(row), seq: ++seq }); },
    audit: (q: AuditQuery = {}) => audit
      .filter((a) => (q.operationId === undefined || a.operationId === q.operationId) && (q.bindingId === undefined || a.bindingId === q.bindingId)
        && (q.from === undefined || a.at >= q.from) && (q.to === undefined || a.at < q.to))
      .slice(0, q.limit ?? DEFAULT_LIMIT)
      .map(copy),
    close: () => {},
  };
}

/** A payload store in memory, with the same retention rule as the SQLite one. */
export function createMemoryPayloads(options: { retentionMs: number }): PayloadStore {
  const entries = new Map<string, { value: unknown; expiresAt: number }>();
  return {
    retentionMs: options.retentionMs,
    put: (ref, value, now = Date.now()) => { entries.set(ref, { value: structuredClone(value), expiresAt: now + options.retentionMs }); },
    get: (ref, now = Date.now()) => { const e = entries.get(ref); return e && e.expiresAt > now ? structuredClone(e.value) : undefined; },
    prune: (now = Date.now()) => {
      let n = 0;
      for (const [ref, e] of entries) if (e.expiresAt <= now) { entries.delete(ref); n++; }
      return n;
    },
    close: () => {},
  };
}
