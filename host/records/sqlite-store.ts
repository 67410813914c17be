/**
 * Records on SQLite (better-sqlite3): WAL, a busy timeout and short transactions, the
 * calls of concurrent operations grouped into one (sqlite-group-commit.ts). The tables have their own names (and their own component in `schema_migrations`),
 * so they can live in the registry's `sluice.db` (open the same file) or in a file of their
 * own. A write is on disk (`synchronous` permitting) when its promise resolves.
 */
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import path from "node:path";
import type Database from "better-sqlite3";
import { SluiceError } from "../errors/sluice-error.js";
import { openSqlite, sqliteStoreError } from "../storage/sqlite-open.js";
import { whenFree } from "../storage/sqlite-busy.js";
import { groupCommit } from "./sqlite-group-commit.js";
import { walThread } from "./sqlite-wal-thread.js";
import type { MigrationSet } from "../storage/migrations.js";
import { PAYLOAD_MIGRATIONS, RECORDS_MIGRATIONS } from "./migrations.js";
import { createSealer, type Sealer } from "./sealed.js";
import { recordWrites, resultJson, RECORD, RESULT, type RecordWrite } from "./sqlite-record-writes.js";
import { recordsWriter } from "./sqlite-writer.js";
import { openRecoverable } from "./recovery-rows.js";
import { loadDeploymentKey } from "../storage/deployment-key.js";
import type { ClaimResult, OperationStore, PayloadStore } from "./store.js";
import type { AuditLogs, AuditQuery, AuditRecord, OperationQuery, OperationRecord, StoredResult } from "./types.js";
import { withKeys } from "../objects/with-keys.js";

/** Options of {@link openSqliteRecords}: durability and how long real results are kept for resume. */
export interface SqliteRecordsOptions {
  /**
   * NORMAL (default) survives a crash of the process (the case resume is for); FULL also
   * survives power loss, at the cost of an fsync per write.
   */
  synchronous?: "NORMAL" | "FULL";
  /**
   * How long a real result is kept for resume after it was stored; then it is deleted
   * (the operation is no longer resumable). Default 24 h. A result is deleted at once
   * when its operation finishes.
   */
  resultRetentionMs?: number;
  /** How often expired results are deleted, by a timer of the store's own. Default: the retention, at most 10 minutes. */
  pruneIntervalMs?: number;
  /**
   * The deployment's secret, which seals what the file keeps (records, real results,
   * payloads: records/sealed.ts). Default: `digest.key` in the database's folder, created
   * when missing (a Registry's data folder keeps the same file); a `:memory:` database
   * uses a random key.
   */
  key?: Uint8Array | string;
  /**
   * Where the writes of concurrent operations run. "batches" (default, on a file): a
   * batch of several runs on a thread of its own (sqlite-writer.ts), a lone write on the
   * store's connection at once; "always": every write on the thread (the event loop does no
   * SQLite work, each write waits for a hop); "off": every write on the store's
   * connection. A `:memory:` database writes on its connection.
   */
  writerThread?: "batches" | "always" | "off";
}

export const DEFAULT_RESULT_RETENTION_MS = 24 * 60 * 60 * 1000;

const MACHINE = hostname();

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

const storeError = (err: unknown, what: string): SluiceError => sqliteStoreError(err, `records store: ${what}`);

function open(file: string, migrations: MigrationSet, options: SqliteRecordsOptions, busyMs: number): Database.Database {
  // A deleted real result must not be readable from the file: secure_delete. Later writes wait through whenFree.
  return openSqlite(file, { what: "records store", migrations: [migrations], synchronous: options.synchronous ?? "NORMAL", foreignKeys: true, secureDelete: true, busyMs });
}

/** The deployment's secret the file is sealed under (a `:memory:` database's is random). */
function secretFor(file: string, key: Uint8Array | string | undefined): Uint8Array | string {
  if (key !== undefined) return key;
  return file === ":memory:" ? randomBytes(32) : loadDeploymentKey(path.dirname(path.resolve(file)));
}

function sealerFor(file: string, key: Uint8Array | string | undefined): Sealer {
  return createSealer(secretFor(file, key));
}

const PAYLOAD = "protected_payloads.body";

/**
 * Opens (creating and migrating) the records database at `file`.
 *
 * @example
 * const records = openSqliteRecords(path.join(dataDir, "sluice.db"));
 * const host = createHost({ records });
 * await host.recover(); // at start-up: operations cut off while running become "unknown"
 */
export function openSqliteRecords(file: string, options: SqliteRecordsOptions = {}): OperationStore {
  const retentionMs = options.resultRetentionMs ?? DEFAULT_RESULT_RETENTION_MS;
  if (!(retentionMs > 0)) throw new SluiceError("CONFIG_INVALID", `records store: resultRetentionMs must be positive, got ${retentionMs}`);
  const pruneEveryMs = options.pruneIntervalMs ?? Math.min(retentionMs, 10 * 60 * 1000);
  if (!(pruneEveryMs > 0)) throw new SluiceError("CONFIG_INVALID", `records store: pruneIntervalMs must be positive, got ${pruneEveryMs}`);
  const offload = options.writerThread ?? "batches";
  if (!["batches", "always", "off"].includes(offload)) throw new SluiceError("CONFIG_INVALID", `records store: writerThread must be "batches", "always" or "off", got ${JSON.stringify(offload)}`, { option: "writerThread" });
  // The records share `sluice.db` with the registry, whose transactions await: never block waiting for its lock.
  const busyMs = 0;
  const secret = secretFor(file, options.key);
  const sealer = createSealer(secret);
  const db = open(file, RECORDS_MIGRATIONS, options, busyMs);
  const seal = (r: OperationRecord) => sealer.seal(r, { column: RECORD, id: r.operationId });
  const unseal = (row: { operation_id: string; record: string }) => sealer.open(row.record, { column: RECORD, id: row.operation_id }) as OperationRecord;
  const q = {
    get: db.prepare("SELECT operation_id, record FROM operation_records WHERE operation_id = ?"),
    set: db.prepare("UPDATE operation_records SET phase = ?, real_status = ?, owner = ?, record = ? WHERE operation_id = ?"),
    result: db.prepare("SELECT result FROM operation_results WHERE operation_id = ?"),
    expire: db.prepare("DELETE FROM operation_results WHERE stored_at <= ?"),
    // What markInterrupted may have to release: unfinished and held, or running without an owner (an awaiting split call holds no host: it is not interrupted by one's end).
    held: db.prepare("SELECT operation_id, record FROM operation_records WHERE phase NOT IN ('finished', 'awaiting') AND (owner IS NOT NULL OR real_status = 'running')"),
    ownerOf: db.prepare("SELECT owner FROM operation_records WHERE operation_id = ?"),
    lease: db.prepare("SELECT lease_until, pid, machine FROM operation_owners WHERE owner = ?"),
    heartbeat: db.prepare("INSERT INTO operation_owners (owner, lease_until, pid, machine) VALUES (?, ?, ?, ?) ON CONFLICT (owner) DO UPDATE SET lease_until = excluded.lease_until, pid = excluded.pid, machine = excluded.machine"),
    retire: db.prepare("DELETE FROM operation_owners WHERE owner = ?"),
  };
  const read = (id: string): OperationRecord | undefined => {
    const row = q.get.get(id) as { operation_id: string; record: string } | undefined;
    return row && unseal(row);
  };
  const live = (owner: string, now: number): boolean => {
    const lease = q.lease.get(owner) as { lease_until: number; pid: number | null; machine: string | null } | undefined;
    if (!lease || lease.lease_until <= now) return false;
    // Every process on one SQLite file runs on this machine (a file shared between machines
    // is not a supported setup): one whose process is gone is not live, even within its lease.
    return lease.machine !== MACHINE || lease.pid === null || processAlive(lease.pid);
  };
  const write = (r: OperationRecord) => q.set.run(r.phase, r.realStatus, r.owner ?? null, seal(r), r.operationId);
  // Done at once when the file is free; while another connection holds the write lock, retried without blocking the event loop.
  const guard = <T>(what: string, fn: () => T): Promise<T> => whenFree(fn).catch((err: unknown) => { throw storeError(err, what); });
  // The serve path's writes, here or on the writer thread (sqlite-writer.ts) when batches
  // of concurrent operations form; a file only (`:memory:` is this connection's alone).
  const writes = recordWrites(db, sealer);
  const writer = file === ":memory:" || offload === "off" ? undefined : recordsWriter({ file, synchronous: options.synchronous ?? "NORMAL", secret });
  // The calls of concurrent operations share a transaction (sqlite-group-commit.ts); reads
  // queue behind the writes asked before them.
  const group = groupCommit(db, writer && {
    takes: (size) => (offload === "always" ? writer.alive() : size > 1 && writer.ready()),
    run: (data) => writer.run(data as RecordWrite[]),
  });
  const queued = <T>(what: string, fn: () => T): Promise<T> => group.run(fn).catch((err: unknown) => { throw storeError(err, what); });
  const written = (what: string, make: () => RecordWrite): Promise<void> => {
    let w: RecordWrite;
    try { w = make(); } catch (err) { return Promise.reject(storeError(err, what)); }
    return group.run(() => writes.run(w), w).then(
      (dropped) => { wrote(); if (dropped) scrubSoon(); },
      (err: unknown) => { throw storeError(err, what); },
    );
  };
  // WAL frames keep a deleted row's old page until the WAL is rewritten: truncating it
  // after deletes leaves the content nowhere in the files. Never waits for other
  // connections (a busy checkpoint is retried at the next one).
  let scrubTimer: NodeJS.Timeout | undefined;
  const scrub = () => {
    scrubTimer = undefined;
    if (!db.open) return;
    try {
      db.pragma("busy_timeout = 0");
      db.pragma("wal_checkpoint(TRUNCATE)");
    } catch { /* busy: the next scrub or close does it */ } finally {
      if (db.open) db.pragma(`busy_timeout = ${busyMs}`);
    }
  };
  // On a file, checkpoints and the truncation run on a thread of their own (sqlite-wal-thread.ts); at close, here.
  const walKeeper = file === ":memory:" ? undefined : walThread(file, (keepsUp) => { if (db.open) db.pragma(`wal_autocheckpoint = ${keepsUp ? 0 : 1000}`); });
  const wrote = () => walKeeper?.wrote();
  const truncate = () => { if (walKeeper) walKeeper.truncate(); else scrub(); };
  const scrubSoon = () => { scrubTimer ??= setTimeout(() => { scrubTimer = undefined; truncate(); }, 1_000).unref(); };
  const pruneResults = (now = Date.now()) => guard("prune", () => {
    const n = q.expire.run(now - retentionMs).changes;
    truncate();
    return n;
  });
  const pruner = setInterval(() => { pruneResults().catch(() => { /* the next round tries again */ }); }, pruneEveryMs).unref();
  return {
    insert: (record, audit = [], result) => written("insert", () => ({ op: "insert", record, audit, result: resultJson(result) })),
    update: (operationId, changes, result, audit = []) => written("update", () => ({ op: "update", operationId, changes, result: resultJson(result), audit })),
    get: (id) => queued("read", () => read(id)),
    result: (id) => queued("read", () => {
      const row = q.result.get(id) as { result: string } | undefined;
      return row && (sealer.open(row.result, { column: RESULT, id }) as StoredResult);
    }),
    list: (query: OperationQuery = {}, unreadable) => queued("list", () => {
      const where: string[] = [];
      const args: unknown[] = [];
      if (query.phase !== undefined) { where.push("phase = ?"); args.push(query.phase); }
      if (query.realStatus !== undefined) { where.push("real_status = ?"); args.push(query.realStatus); }
      const sql = `SELECT operation_id, record FROM operation_records ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY created_at DESC, rowid DESC LIMIT ?`;
      return openRecoverable(db.prepare(sql).all(...args, query.limit ?? 1000) as { operation_id: string; record: string }[], unseal, unreadable);
    }),
    markInterrupted: (owner, now = Date.now(), unreadable) => queued("recover", () => db.transaction(() => {
      const held = openRecoverable(q.held.all() as { operation_id: string; record: string }[], unseal, unreadable);
      const unknown: string[] = [];
      for (const r of held) {
        if (r.owner != null && r.owner !== owner && live(r.owner, now)) continue;
        if (r.realStatus === "running") { write(withKeys(r, { owner: null, realStatus: "unknown", updatedAt: now })); unknown.push(r.operationId); }
        else if (r.owner != null) write(withKeys(r, { owner: null }));
      }
      return unknown;
    }).immediate()),
    heartbeat: (owner, until) => queued("heartbeat", () => { q.heartbeat.run(owner, until, process.pid, MACHINE); }),
    retire: (owner) => queued("retire", () => { q.retire.run(owner); }),
    claim: (id, owner, now = Date.now()) => queued("claim", () => db.transaction((): ClaimResult => {
      const row = q.ownerOf.get(id) as { owner: string | null } | undefined;
      if (!row) return "missing";
      if (row.owner !== null && (row.owner === owner || live(row.owner, now))) return "busy";
      writes.forget(id);
      write(withKeys(read(id)!, { owner }));
      return "claimed";
    }).immediate()),
    appendAudit: (audit) => written("audit", () => ({ op: "audit", audit })),
    audit: (query: AuditQuery = {}) => queued("audit query", () => {
      const where: string[] = [];
      const args: unknown[] = [];
      if (query.operationId !== undefined) { where.push("operation_id = ?"); args.push(query.operationId); }
      if (query.bindingId !== undefined) { where.push("binding_id = ?"); args.push(query.bindingId); }
      if (query.from !== undefined) { where.push("at >= ?"); args.push(query.from); }
      if (query.to !== undefined) { where.push("at < ?"); args.push(query.to); }
      const sql = `SELECT * FROM hook_audit ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY seq LIMIT ?`;
      return (db.prepare(sql).all(...args, query.limit ?? 1000) as Record<string, unknown>[]).map(auditOf);
    }),
    pruneResults,
    close: () => {
      clearInterval(pruner);
      clearTimeout(scrubTimer);
      const finish = () => { if (db.open) { scrub(); db.close(); } };
      // Closed before returning when nothing is queued and no WAL thread is up (`:memory:`);
      // else after the queue and the thread, so this last truncation finds the file free.
      if (group.idle() && !walKeeper?.started() && !writer) { finish(); return Promise.resolve(); }
      return group.drained().then(() => writer?.close()).then(() => walKeeper?.close()).then(finish);
    },
  };
}

function auditOf(r: Record<string, unknown>): AuditRecord {
  return {
    seq: r.seq as number, operationId: r.operation_id as string, bindingId: r.binding_id as string, hookRef: r.hook_ref as string,
    codeSha256: r.code_sha256 as string, point: r.point as AuditRecord["point"], phase: r.phase as string, revision: r.revision as number,
    outcome: r.outcome as string, inputDigest: r.input_digest as string, outputDigest: r.output_digest as string,
    patchDigest: (r.patch_digest as string | null) ?? null, durationMs: r.duration_ms as number, fuel: (r.fuel as number | null) ?? null, errorCode: (r.error_code as string | null) ?? null,
    logs: typeof r.logs === "string" ? JSON.parse(r.logs) as AuditLogs : null, at: r.at as number,
  };
}

/**
 * Opens the opt-in protected payload store. Give it a file of its own (created 0600 in a
 * private directory): it holds the content the records deliberately leave out, sealed
 * under `options.key` (default: `digest.key` in the file's folder, as for the records).
 */
export function openSqlitePayloads(file: string, options: SqliteRecordsOptions & { retentionMs: number }): PayloadStore {
  if (!(options.retentionMs > 0)) throw new SluiceError("CONFIG_INVALID", `payload store: retentionMs must be positive, got ${options.retentionMs}`);
  const sealer = sealerFor(file, options.key);
  const db = open(file, PAYLOAD_MIGRATIONS, options, 5000);
  const put = db.prepare("INSERT OR REPLACE INTO protected_payloads (ref, body, expires_at) VALUES (?, ?, ?)");
  const get = db.prepare("SELECT body FROM protected_payloads WHERE ref = ? AND expires_at > ?");
  const prune = db.prepare("DELETE FROM protected_payloads WHERE expires_at <= ?");
  return {
    retentionMs: options.retentionMs,
    put: async (ref, value, now = Date.now()) => { try { put.run(ref, sealer.seal(value ?? null, { column: PAYLOAD, id: ref }), now + options.retentionMs); } catch (err) { throw storeError(err, "payload put"); } },
    get: async (ref, now = Date.now()) => { const row = get.get(ref, now) as { body: string } | undefined; return row && sealer.open(row.body, { column: PAYLOAD, id: ref }); },
    prune: async (now = Date.now()) => prune.run(now).changes,
    close: async () => { if (db.open) db.close(); },
  };
}
