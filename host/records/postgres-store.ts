/**
 * Records, audit and protected payloads on PostgreSQL, shared by every host of a fleet.
 * The record is kept as sealed JSON (the source of truth, as on SQLite; records/sealed.ts) beside the columns that
 * queries filter on. Operations across hosts: `operation_owners` holds each host's lease;
 * `claim` and `markInterrupted` lock the rows they change (SELECT … FOR UPDATE) and read
 * the leases in the same transaction, so two hosts never take the same operation.
 */
import { SluiceError } from "../errors/sluice-error.js";
import { int, postgresGuarded, postgresStoreError, type PostgresEngine, type Sql } from "../storage/postgres.js";
import type { ClaimResult, OperationStore, PayloadStore } from "./store.js";
import type { AuditLogs, AuditQuery, AuditRecord, OperationQuery, OperationRecord, StoredResult } from "./types.js";
import { withChanges, withKeys } from "../objects/with-keys.js";
import { ephemeralSealer, type Sealer } from "./sealed.js";
import { openRecoverable } from "./recovery-rows.js";
import { LastWritten, type Written } from "./last-written.js";

export interface PostgresRecordsOptions {
  /** How long a real result is kept for resume after it was stored (default 24 h). */
  resultRetentionMs?: number;
  /** How often expired results are deleted (default: the retention, at most 10 minutes). */
  pruneIntervalMs?: number;
  /** Seals the records and results (records/sealed.ts); every host sharing the database must use the same key. Default: a random key (readable by this process only). */
  sealer?: Sealer;
  /**
   * NORMAL (default): an operation's writes commit without waiting for the server to flush
   * its WAL (`synchronous_commit = off` for that statement alone), as SQLite's NORMAL does:
   * they survive a crash of this host; the server's crash or power loss can lose the last
   * ones (within three times its `wal_writer_delay`, 600 ms by default). FULL: the server's
   * own `synchronous_commit` (by default each write is on disk before it returns).
   */
  synchronous?: "NORMAL" | "FULL";
}

const RECORD = "operation_records.record";
const RESULT = "operation_results.result";
const PAYLOAD = "protected_payloads.body";
type RecordRow = { operation_id: string; record: string };

const DEFAULT_RESULT_RETENTION_MS = 24 * 60 * 60 * 1000;
/** Owners whose lease is current at $now: the live hosts. */
const LIVE = "SELECT owner FROM operation_owners WHERE lease_until > $NOW";

const guard = <T>(what: string, fn: () => Promise<T>): Promise<T> => postgresGuarded(`records store: ${what}`, fn);

async function write(sql: Sql, sealer: Sealer, r: OperationRecord): Promise<void> {
  await sql.query("UPDATE operation_records SET phase = $1, real_status = $2, owner = $3, record = $4 WHERE operation_id = $5", [r.phase, r.realStatus, r.owner ?? null, sealer.seal(r, { column: RECORD, id: r.operationId }), r.operationId]);
}

const AUDIT_COLUMNS: readonly (readonly [string, string])[] = [
  ["operation_id", "text"], ["binding_id", "text"], ["hook_ref", "text"], ["code_sha256", "text"], ["point", "text"], ["phase", "text"], ["revision", "integer"],
  ["outcome", "text"], ["input_digest", "text"], ["output_digest", "text"], ["patch_digest", "text"], ["duration_ms", "double precision"], ["fuel", "bigint"], ["error_code", "text"], ["logs", "text"], ["at", "bigint"],
];

/**
 * Audit rows as a `SELECT` of typed parameters, numbered after `args` (which it extends),
 * in the order given (hook_audit's seq follows it); `when` filters the whole batch.
 */
function auditSelect(rows: readonly AuditRecord[], args: unknown[], when = "TRUE"): string {
  const tuples = rows.map((a) => {
    const row = [a.operationId, a.bindingId, a.hookRef, a.codeSha256, a.point, a.phase, a.revision, a.outcome, a.inputDigest, a.outputDigest, a.patchDigest, a.durationMs, a.fuel, a.errorCode, a.logs ? JSON.stringify(a.logs) : null, a.at];
    const start = args.length;
    args.push(...row);
    return `(${row.map((_, i) => `$${start + i + 1}::${AUDIT_COLUMNS[i]![1]}`).join(", ")})`;
  });
  return `INSERT INTO hook_audit (${AUDIT_COLUMNS.map(([c]) => c).join(", ")}) SELECT * FROM (VALUES ${tuples.join(", ")}) AS v WHERE ${when}`;
}

/**
 * A CTE that makes the statement's own transaction commit without waiting for the WAL
 * flush (set_config(..., true) lasts until that transaction ends; the statement is one).
 * It must be read by the statement's final SELECT, or PostgreSQL never evaluates it.
 */
const ASYNC_COMMIT = "c AS (SELECT set_config('synchronous_commit', 'off', true) AS s)";
const commitOf = (synchronous: "NORMAL" | "FULL") => (synchronous === "NORMAL" ? { cte: `${ASYNC_COMMIT},`, from: ", c", tag: "n" } : { cte: "", from: "", tag: "f" });
/** Statements of up to this many audit rows are prepared (one text per row count): more are rare, and sent unprepared. */
const PREPARED_AUDIT_ROWS = 16;
/** The prepared statement's name for a write of `kind` with `rows` audit rows, if it is one. */
const preparedName = (kind: string, commit: { tag: string }, rows: number): string | undefined => (rows <= PREPARED_AUDIT_ROWS ? `sluice_records_${kind}_${commit.tag}_${rows}` : undefined);

/**
 * An update as one statement, one round trip, when this store wrote the record's current
 * version itself: the new sealed record replaces the row only if the row still holds the
 * sealed text this store wrote (a fresh nonce per write makes that text a version), and the
 * real result is stored or, once the operation finished, deleted in the same statement.
 * Resolves false when the row changed elsewhere (another host, a claim): the caller falls
 * back to the transaction that reads the row under lock.
 */
async function updateInOneStatement(db: PostgresEngine, sealer: Sealer, known: Written, next: OperationRecord, result: StoredResult | undefined, audit: readonly AuditRecord[], commit: { cte: string; from: string; tag: string }): Promise<string | undefined> {
  const id = next.operationId;
  const sealed = sealer.seal(next, { column: RECORD, id });
  const args: unknown[] = [id, known.sealed, next.phase, next.realStatus, next.owner ?? null, sealed, result && next.phase !== "finished" ? sealer.seal(result, { column: RESULT, id }) : null, Date.now()];
  const { rows } = await db.query<{ n: number }>(
    `WITH ${commit.cte} u AS (
       UPDATE operation_records SET phase = $3, real_status = $4, owner = $5, record = $6
        WHERE operation_id = $1 AND record = $2 RETURNING phase),
     r AS (
       INSERT INTO operation_results (operation_id, result, stored_at) SELECT $1, $7::text, $8 FROM u WHERE $7::text IS NOT NULL AND u.phase <> 'finished'
       ON CONFLICT (operation_id) DO UPDATE SET result = excluded.result, stored_at = excluded.stored_at),
     d AS (DELETE FROM operation_results WHERE operation_id = $1 AND EXISTS (SELECT 1 FROM u WHERE u.phase = 'finished'))
     ${audit.length > 0 ? `, a AS (${auditSelect(audit, args, "EXISTS (SELECT 1 FROM u)")})` : ""}
     SELECT count(*)::int AS n FROM u${commit.from}`,
    args, preparedName("update", commit, audit.length));
  return (rows[0]?.n ?? 0) === 1 ? sealed : undefined;
}

/**
 * The records store on `db` (already migrated: see openPostgresStores). Closing it stops
 * its prune timer; `db` stays the caller's.
 */
export function postgresRecords(db: PostgresEngine, options: PostgresRecordsOptions = {}): OperationStore {
  const retentionMs = options.resultRetentionMs ?? DEFAULT_RESULT_RETENTION_MS;
  if (!(retentionMs > 0)) throw new SluiceError("CONFIG_INVALID", `records store: resultRetentionMs must be positive, got ${retentionMs}`);
  const pruneEveryMs = options.pruneIntervalMs ?? Math.min(retentionMs, 10 * 60 * 1000);
  if (!(pruneEveryMs > 0)) throw new SluiceError("CONFIG_INVALID", `records store: pruneIntervalMs must be positive, got ${pruneEveryMs}`);
  const sealer = options.sealer ?? ephemeralSealer();
  const synchronous = options.synchronous ?? "NORMAL";
  if (synchronous !== "NORMAL" && synchronous !== "FULL") throw new SluiceError("CONFIG_INVALID", `records store: synchronous must be "NORMAL" or "FULL", got ${JSON.stringify(synchronous)}`, { field: "synchronous" });
  const commit = commitOf(synchronous);
  const unseal = (row: RecordRow) => sealer.open(row.record, { column: RECORD, id: row.operation_id }) as OperationRecord;
  const pruneResults = (now = Date.now()) => guard("prune", async () => (await db.query("DELETE FROM operation_results WHERE stored_at <= $1", [now - retentionMs])).rowCount ?? 0);
  const known = new LastWritten();
  const pruner = setInterval(() => { pruneResults().catch(() => { /* the next round tries again */ }); }, pruneEveryMs).unref();

  return {
    insert: (r, audit = [], result) => guard("insert", async () => {
      const id = r.operationId;
      const sealed = sealer.seal(r, { column: RECORD, id });
      const args: unknown[] = [id, r.phase, r.realStatus, r.owner ?? null, r.createdAt, sealed, result && r.phase !== "finished" ? sealer.seal(result, { column: RESULT, id }) : null, Date.now()];
      // One statement, one round trip: the record, its real result and its audit rows land together.
      await db.query(
        `WITH ${commit.cte} i AS (
           INSERT INTO operation_records (operation_id, phase, real_status, owner, created_at, record) VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (operation_id) DO UPDATE SET phase = excluded.phase, real_status = excluded.real_status, owner = excluded.owner, created_at = excluded.created_at, record = excluded.record
           RETURNING operation_id),
         r AS (
           INSERT INTO operation_results (operation_id, result, stored_at) SELECT $1, $7::text, $8 FROM i WHERE $7::text IS NOT NULL
           ON CONFLICT (operation_id) DO UPDATE SET result = excluded.result, stored_at = excluded.stored_at)
         ${audit.length > 0 ? `, a AS (${auditSelect(audit, args)})` : ""}
         SELECT 1${commit.from ? " FROM c" : ""}`,
        args, preparedName("insert", commit, audit.length));
      known.remember(r, sealed);
    }),
    update: (id, changes, result, audit = []) => guard("update", async () => {
      const mine = known.get(id);
      if (mine) {
        const next = withChanges(mine.record, changes);
        const sealed = await updateInOneStatement(db, sealer, mine, next, result, audit, commit);
        if (sealed !== undefined) return known.remember(next, sealed);
      }
      known.forget(id);
      // The row changed elsewhere, or this store never wrote it: read it under lock.
      await db.transaction(async (sql) => {
        const { rows } = await sql.query<RecordRow>("SELECT operation_id, record FROM operation_records WHERE operation_id = $1 FOR UPDATE", [id]);
        if (!rows[0]) throw new SluiceError("OPERATION_NOT_FOUND", `no operation record ${id}`, { operationId: id });
        const next = withChanges(unseal(rows[0]), changes);
        await write(sql, sealer, next);
        if (audit.length > 0) { const args: unknown[] = []; await sql.query(auditSelect(audit, args), args); }
        if (result && next.phase !== "finished") {
          await sql.query("INSERT INTO operation_results (operation_id, result, stored_at) VALUES ($1, $2, $3) ON CONFLICT (operation_id) DO UPDATE SET result = excluded.result, stored_at = excluded.stored_at", [id, sealer.seal(result, { column: RESULT, id }), Date.now()]);
        }
        // A finished operation can no longer resume: its real result has no reason to stay.
        if (next.phase === "finished") await sql.query("DELETE FROM operation_results WHERE operation_id = $1", [id]);
      }, "read committed");
    }),
    get: (id) => guard("read", async () => {
      const { rows } = await db.query<RecordRow>("SELECT operation_id, record FROM operation_records WHERE operation_id = $1", [id]);
      return rows[0] && unseal(rows[0]);
    }),
    result: (id) => guard("read", async () => {
      const { rows } = await db.query<{ result: string }>("SELECT result FROM operation_results WHERE operation_id = $1", [id]);
      return rows[0] && (sealer.open(rows[0].result, { column: RESULT, id }) as StoredResult);
    }),
    pruneResults,
    list: (query: OperationQuery = {}, unreadable) => guard("list", async () => {
      const where: string[] = [];
      const args: unknown[] = [];
      if (query.phase !== undefined) { args.push(query.phase); where.push(`phase = $${args.length}`); }
      if (query.realStatus !== undefined) { args.push(query.realStatus); where.push(`real_status = $${args.length}`); }
      args.push(query.limit ?? 1000);
      const { rows } = await db.query<RecordRow>(`SELECT operation_id, record FROM operation_records ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at DESC, seq DESC LIMIT $${args.length}`, args);
      return openRecoverable(rows, unseal, unreadable);
    }),
    markInterrupted: (owner, now = Date.now(), unreadable) => guard("recover", () => db.transaction(async (sql) => {
      const { rows } = await sql.query<RecordRow>(
        `SELECT operation_id, record FROM operation_records
          WHERE phase NOT IN ('finished', 'awaiting') AND (owner IS NULL OR owner = $1 OR owner NOT IN (${LIVE.replace("$NOW", "$2")}))
          FOR UPDATE`, [owner, now]);
      const interrupted: string[] = [];
      for (const r of openRecoverable(rows, unseal, unreadable)) {
        const running = r.realStatus === "running";
        if (running) interrupted.push(r.operationId);
        await write(sql, sealer, withChanges(r, running ? { owner: null, realStatus: "unknown", updatedAt: now } : { owner: null }));
      }
      return interrupted;
    }, "read committed")),
    heartbeat: (owner, until) => guard("heartbeat", async () => {
      await db.query("INSERT INTO operation_owners (owner, lease_until) VALUES ($1, $2) ON CONFLICT (owner) DO UPDATE SET lease_until = excluded.lease_until", [owner, until]);
    }),
    retire: (owner) => guard("retire", async () => {
      await db.query("DELETE FROM operation_owners WHERE owner = $1", [owner]);
    }),
    claim: (id, owner, now = Date.now()): Promise<ClaimResult> => guard("claim", () => db.transaction(async (sql) => {
      // The row lock makes two claims of one operation take turns; the second sees the first's owner.
      const { rows } = await sql.query<RecordRow & { owner: string | null; live: boolean }>(
        `SELECT operation_id, record, owner, (owner IS NOT NULL AND owner IN (${LIVE.replace("$NOW", "$2")})) AS live
           FROM operation_records WHERE operation_id = $1 FOR UPDATE`, [id, now]);
      const row = rows[0];
      if (!row) return "missing";
      if (row.owner === owner || row.live) return "busy";
      await write(sql, sealer, withKeys(unseal(row), { owner }));
      return "claimed";
    }, "read committed")),
    appendAudit: (records) => guard("audit", async () => {
      if (records.length === 0) return;
      // One statement: the whole batch lands or none of it.
      const args: unknown[] = [];
      await db.query(auditSelect(records, args), args);
    }),
    audit: (query: AuditQuery = {}) => guard("audit query", async () => {
      const where: string[] = [];
      const args: unknown[] = [];
      const add = (clause: string, value: unknown) => { args.push(value); where.push(clause.replace("?", `$${args.length}`)); };
      if (query.operationId !== undefined) add("operation_id = ?", query.operationId);
      if (query.bindingId !== undefined) add("binding_id = ?", query.bindingId);
      if (query.from !== undefined) add("at >= ?", query.from);
      if (query.to !== undefined) add("at < ?", query.to);
      args.push(query.limit ?? 1000);
      const { rows } = await db.query(`SELECT * FROM hook_audit ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY seq LIMIT $${args.length}`, args);
      return rows.map(auditOf);
    }),
    close: async () => {
      clearInterval(pruner);
    },
  };
}

function auditOf(r: Record<string, unknown>): AuditRecord {
  return {
    seq: int(r.seq), operationId: r.operation_id as string, bindingId: r.binding_id as string, hookRef: r.hook_ref as string,
    codeSha256: r.code_sha256 as string, point: r.point as AuditRecord["point"], phase: r.phase as string, revision: r.revision as number,
    outcome: r.outcome as string, inputDigest: r.input_digest as string, outputDigest: r.output_digest as string,
    patchDigest: (r.patch_digest as string | null) ?? null, durationMs: r.duration_ms as number, fuel: r.fuel === null ? null : int(r.fuel),
    errorCode: (r.error_code as string | null) ?? null, logs: typeof r.logs === "string" ? JSON.parse(r.logs) as AuditLogs : null, at: int(r.at),
  };
}

/** The opt-in protected payload store on `db` (already migrated), its content sealed by `options.sealer` (default: a random key). */
export function postgresPayloads(db: PostgresEngine, options: { retentionMs: number; sealer?: Sealer }): PayloadStore {
  const sealer = options.sealer ?? ephemeralSealer();
  if (!(options.retentionMs > 0)) throw new SluiceError("CONFIG_INVALID", `payload store: retentionMs must be positive, got ${options.retentionMs}`);
  const what = (w: string) => `payload store: ${w}`;
  return {
    retentionMs: options.retentionMs,
    put: async (ref, value, now = Date.now()) => {
      try {
        await db.query("INSERT INTO protected_payloads (ref, body, expires_at) VALUES ($1, $2, $3) ON CONFLICT (ref) DO UPDATE SET body = excluded.body, expires_at = excluded.expires_at", [ref, sealer.seal(value ?? null, { column: PAYLOAD, id: ref }), now + options.retentionMs]);
      } catch (err) { throw postgresStoreError(err, what("put")); }
    },
    get: async (ref, now = Date.now()) => {
      try {
        const { rows } = await db.query<{ body: string }>("SELECT body FROM protected_payloads WHERE ref = $1 AND expires_at > $2", [ref, now]);
        return rows[0] && sealer.open(rows[0].body, { column: PAYLOAD, id: ref });
      } catch (err) { throw postgresStoreError(err, what("get")); }
    },
    prune: async (now = Date.now()) => {
      try {
        return (await db.query("DELETE FROM protected_payloads WHERE expires_at <= $1", [now])).rowCount ?? 0;
      } catch (err) { throw postgresStoreError(err, what("prune")); }
    },
    close: async () => {},
  };
}
