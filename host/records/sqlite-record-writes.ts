/**
 * The records' writes on the serve path, as plain data: a record inserted or updated with
 * its audit rows and real result, or audit rows alone. One executor runs them over a
 * connection; the store runs it on its own connection and the writer thread
 * (sqlite-writer.ts) on one of its own, so a write is the same statements, sealed the same
 * way, wherever it runs.
 */
import type Database from "better-sqlite3";
import { SluiceError } from "../errors/sluice-error.js";
import { withChanges } from "../objects/with-keys.js";
import { LastWritten } from "./last-written.js";
import type { Sealer } from "./sealed.js";
import type { AuditRecord, OperationRecord, StoredResult } from "./types.js";

/**
 * `result` is the stored result's JSON, made where the write was asked: a real result is
 * whatever a tool returned (class instances, functions), which a copy to another thread
 * would change or refuse; its JSON is what gets sealed either way.
 */
export type RecordWrite =
  | { op: "insert"; record: OperationRecord; audit: readonly AuditRecord[]; result: string | undefined }
  | { op: "update"; operationId: string; changes: Partial<OperationRecord>; result: string | undefined; audit: readonly AuditRecord[] }
  | { op: "audit"; audit: readonly AuditRecord[] };

/** The write of `result` as a {@link RecordWrite} carries it. */
export const resultJson = (result: StoredResult | undefined): string | undefined => (result === undefined ? undefined : JSON.stringify(result));

export const RECORD = "operation_records.record";
export const RESULT = "operation_results.result";

export interface RecordWrites {
  /**
   * Runs `write` in a transaction of its own (a savepoint inside a batch's). True when it
   * deleted a stored result: the WAL should be truncated soon, so no frame keeps it.
   */
  run(write: RecordWrite): boolean;
  /** Drops what this executor last wrote of `operationId` (the row is changed elsewhere: a claim). */
  forget(operationId: string): void;
}

export function recordWrites(db: Database.Database, sealer: Sealer): RecordWrites {
  const q = {
    insert: db.prepare("INSERT OR REPLACE INTO operation_records (operation_id, phase, real_status, created_at, owner, record) VALUES (?, ?, ?, ?, ?, ?)"),
    get: db.prepare("SELECT record FROM operation_records WHERE operation_id = ?").pluck(),
    set: db.prepare("UPDATE operation_records SET phase = ?, real_status = ?, owner = ?, record = ? WHERE operation_id = ?"),
    // The update of a record this executor wrote last: only if the row still holds that sealed text (a fresh nonce per write makes it a version).
    swap: db.prepare("UPDATE operation_records SET phase = ?, real_status = ?, owner = ?, record = ? WHERE operation_id = ? AND record = ?"),
    putResult: db.prepare("INSERT OR REPLACE INTO operation_results (operation_id, result, stored_at) VALUES (?, ?, ?)"),
    dropResult: db.prepare("DELETE FROM operation_results WHERE operation_id = ?"),
    audit: db.prepare(`INSERT INTO hook_audit (operation_id, binding_id, hook_ref, code_sha256, point, phase, revision, outcome, input_digest, output_digest, patch_digest, duration_ms, fuel, error_code, logs, at)
      VALUES (@operationId, @bindingId, @hookRef, @codeSha256, @point, @phase, @revision, @outcome, @inputDigest, @outputDigest, @patchDigest, @durationMs, @fuel, @errorCode, @logs, @at)`),
  };
  const seal = (r: OperationRecord) => sealer.seal(r, { column: RECORD, id: r.operationId });
  // So an update needs neither a read nor an unseal (last-written.ts). The store and the
  // writer thread each keep their own: one's entry gone stale by the other's write fails
  // the swap and is read, as a row changed by another host is.
  const known = new LastWritten();
  const audit = (rows: readonly AuditRecord[]) => { for (const row of rows) q.audit.run(auditRow(row)); };
  // The rest of a record's write; true when a stored result was deleted.
  const rest = (id: string, next: OperationRecord, result: string | undefined, rows: readonly AuditRecord[]): boolean => {
    if (result !== undefined && next.phase !== "finished") q.putResult.run(id, sealer.sealJson(result, { column: RESULT, id }), Date.now());
    // A finished operation can no longer resume: its real result has no reason to stay.
    const dropped = next.phase === "finished" && q.dropResult.run(id).changes > 0;
    audit(rows);
    return dropped;
  };
  // Built once: better-sqlite3 prepares a transaction's BEGIN/COMMIT statements when the function is made.
  const tx = {
    insert: db.transaction((r: OperationRecord, rows: readonly AuditRecord[], result: string | undefined): boolean => {
      const sealed = seal(r);
      q.insert.run(r.operationId, r.phase, r.realStatus, r.createdAt, r.owner ?? null, sealed);
      const dropped = rest(r.operationId, r, result, rows);
      known.remember(r, sealed);
      return dropped;
    }),
    update: db.transaction((id: string, changes: Partial<OperationRecord>, result: string | undefined, rows: readonly AuditRecord[]): boolean => {
      const mine = known.get(id);
      if (mine) {
        const next = withChanges(mine.record, changes);
        const sealed = seal(next);
        if (q.swap.run(next.phase, next.realStatus, next.owner ?? null, sealed, id, mine.sealed).changes === 1) {
          known.remember(next, sealed);
          return rest(id, next, result, rows);
        }
      }
      known.forget(id);
      const text = q.get.get(id) as string | undefined;
      if (text === undefined) throw new SluiceError("OPERATION_NOT_FOUND", `no operation record ${id}`, { operationId: id });
      const next = withChanges(sealer.open(text, { column: RECORD, id }) as OperationRecord, changes);
      q.set.run(next.phase, next.realStatus, next.owner ?? null, seal(next), id);
      return rest(id, next, result, rows);
    }),
    audit: db.transaction((rows: readonly AuditRecord[]): boolean => { audit(rows); return false; }),
  };
  return {
    run(w) {
      switch (w.op) {
        case "insert": return tx.insert.immediate(w.record, w.audit, w.result);
        case "update": return tx.update.immediate(w.operationId, w.changes, w.result, w.audit);
        case "audit": return tx.audit.immediate(w.audit);
      }
    },
    forget: (id) => known.forget(id),
  };
}

function auditRow(a: AuditRecord): Record<string, unknown> {
  const { operationId, bindingId, hookRef, codeSha256, point, phase, revision, outcome, inputDigest, outputDigest, patchDigest, durationMs, fuel, errorCode, at } = a;
  return { operationId, bindingId, hookRef, codeSha256, point, phase, revision, outcome, inputDigest, outputDigest, patchDigest, durationMs, fuel, errorCode, logs: a.logs ? JSON.stringify(a.logs) : null, at };
}
