/** The control audit on SQLite, in the registry's `sluice.db`. */
import type Database from "better-sqlite3";
import { SluiceError } from "../errors/sluice-error.js";
import { openSqlite } from "../storage/sqlite-open.js";
import type { MigrationSet } from "../storage/migrations.js";
import { whenFree } from "../storage/sqlite-busy.js";
import type { ControlAction, ControlAuditEntry, ControlAuditFilter, ControlAuditStore } from "./control-audit-store.js";

const COLUMNS = "id TEXT PRIMARY KEY, at TEXT NOT NULL, at_ms BIGINT NOT NULL, action TEXT NOT NULL, token_id TEXT NOT NULL, token_name TEXT NOT NULL, role TEXT NOT NULL, target TEXT, revision INTEGER, changes TEXT NOT NULL";

export const CONTROL_AUDIT_MIGRATIONS: MigrationSet = {
  component: "control-audit",
  migrations: {
    sqlite: [{ version: 1, name: "control audit", sql: `CREATE TABLE control_audit (${COLUMNS.replace("BIGINT", "INTEGER")}) STRICT; CREATE INDEX control_audit_at ON control_audit (at_ms); CREATE INDEX control_audit_revision ON control_audit (revision);` }],
    postgres: [{ version: 1, name: "control audit", sql: `CREATE TABLE control_audit (${COLUMNS}); CREATE INDEX control_audit_at ON control_audit (at_ms); CREATE INDEX control_audit_revision ON control_audit (revision);` }],
  },
};

export interface ControlAuditRow { id: string; at: string; action: string; token_id: string; token_name: string; role: string; target: string | null; revision: number | null; changes: string }

export const controlEntryOf = (r: ControlAuditRow): ControlAuditEntry => ({
  id: r.id, at: r.at, action: r.action as ControlAction, tokenId: r.token_id, tokenName: r.token_name, role: r.role,
  target: r.target, revision: r.revision === null ? null : Number(r.revision), changes: JSON.parse(r.changes) as ControlAuditEntry["changes"],
});

/** The WHERE clause and its parameters of a filter, with `?` or `$n` placeholders. */
export function controlWhere(filter: ControlAuditFilter, placeholder: (n: number) => string): { where: string; params: unknown[] } {
  const terms: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, value: unknown) => { params.push(value); terms.push(sql.replace("?", placeholder(params.length))); };
  if (filter.action !== undefined) add("action = ?", filter.action);
  if (filter.revision !== undefined) add("revision = ?", filter.revision);
  if (filter.tokenName !== undefined) add("token_name = ?", filter.tokenName);
  if (filter.from !== undefined) add("at_ms >= ?", filter.from);
  if (filter.to !== undefined) add("at_ms < ?", filter.to);
  return { where: terms.length ? `WHERE ${terms.join(" AND ")}` : "", params };
}

export const CONTROL_SELECT = "id, at, action, token_id, token_name, role, target, revision, changes";

/** Opens the control audit in the SQLite file `file`. */
export function openSqliteControlAudit(file: string): ControlAuditStore {
  const db: Database.Database = openSqlite(file, { what: "control audit", migrations: [CONTROL_AUDIT_MIGRATIONS], busyMs: 0 });
  const insert = db.prepare("INSERT INTO control_audit (id, at, at_ms, action, token_id, token_name, role, target, revision, changes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  const guard = <T>(what: string, fn: () => T): Promise<T> => whenFree(fn).catch((err: unknown) => {
    throw new SluiceError("STORE_UNAVAILABLE", `control audit: ${what} failed: ${(err as Error)?.message ?? String(err)}`, {}, { cause: err });
  });
  return {
    append: (e) => guard("append", () => { insert.run(e.id, e.at, Date.parse(e.at), e.action, e.tokenId, e.tokenName, e.role, e.target, e.revision, JSON.stringify(e.changes)); }),
    list: (filter = {}) => guard("list", () => {
      const { where, params } = controlWhere(filter, () => "?");
      const total = (db.prepare(`SELECT count(*) AS n FROM control_audit ${where}`).get(...params) as { n: number }).n;
      const rows = db.prepare(`SELECT ${CONTROL_SELECT} FROM control_audit ${where} ORDER BY at_ms DESC, id DESC LIMIT ? OFFSET ?`)
        .all(...params, filter.limit ?? 100, filter.offset ?? 0) as ControlAuditRow[];
      return { items: rows.map(controlEntryOf), total };
    }),
    close: async () => { if (db.open) db.close(); },
  };
}
