/** The control audit on PostgreSQL: every host of a fleet appends to one audit. */
import { postgresGuarded, type PostgresEngine } from "../storage/postgres.js";
import type { ControlAuditStore } from "./control-audit-store.js";
import { CONTROL_SELECT, controlEntryOf, controlWhere, type ControlAuditRow } from "./sqlite-control-audit.js";

/** The control audit on `db` (already migrated: see openPostgresStores); `db` stays the caller's. */
export function postgresControlAudit(db: PostgresEngine): ControlAuditStore {
  return {
    append: (e) => postgresGuarded("control audit: append", async () => {
      await db.query("INSERT INTO control_audit (id, at, at_ms, action, token_id, token_name, role, target, revision, changes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        [e.id, e.at, Date.parse(e.at), e.action, e.tokenId, e.tokenName, e.role, e.target, e.revision, JSON.stringify(e.changes)]);
    }),
    list: (filter = {}) => postgresGuarded("control audit: list", async () => {
      const { where, params } = controlWhere(filter, (n) => `$${n}`);
      const total = Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM control_audit ${where}`, params)).rows[0]!.n);
      const n = params.length;
      // id breaks ties within a millisecond: ids are made in time order (controlEntryId).
      const { rows } = await db.query<ControlAuditRow>(`SELECT ${CONTROL_SELECT} FROM control_audit ${where} ORDER BY at_ms DESC, id DESC LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...params, filter.limit ?? 100, filter.offset ?? 0]);
      return { items: rows.map(controlEntryOf), total };
    }),
    close: async () => {},
  };
}
