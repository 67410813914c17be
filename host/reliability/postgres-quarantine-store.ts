/**
 * Quarantine decisions on PostgreSQL, shared by every host of a fleet. Each change (a
 * decision, a lift, an expiry) NOTIFYs {@link QUARANTINE_CHANNEL} when it commits, so
 * every host re-reads the entries at once instead of at its next periodic refresh.
 */
import type { ErrorData } from "../errors/sluice-error.js";
import type { Migration } from "../storage/migrations.js";
import { int, postgresStoreError, type PostgresEngine } from "../storage/postgres.js";
import type { QuarantineEntry } from "./quarantine.js";
import type { QuarantineStore } from "./quarantine-store.js";

/** Channel of quarantine changes; the payload is the plugin ref. */
export const QUARANTINE_CHANNEL = "sluice_quarantine";

export const QUARANTINE_PG_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "quarantine",
    sql: "CREATE TABLE quarantine (ref TEXT PRIMARY KEY, since BIGINT NOT NULL, until BIGINT, failures INTEGER NOT NULL, last_error TEXT NOT NULL);",
  },
];

type Row = { ref: string; since: string; until: string | null; failures: number; last_error: string };
const entryOf = (r: Row): QuarantineEntry => ({ ref: r.ref, since: int(r.since), until: r.until === null ? null : int(r.until), failures: r.failures, lastError: JSON.parse(r.last_error) as ErrorData });

async function guard<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw postgresStoreError(err, `quarantine store: ${what}`);
  }
}

/** The quarantine store on `db` (already migrated: see openPostgresStores); `db` stays the caller's. */
export function postgresQuarantineStore(db: PostgresEngine): QuarantineStore {
  const changed = async (refs: readonly string[]) => { for (const ref of refs) await db.notify(QUARANTINE_CHANNEL, ref); };
  return {
    put: (entry) => guard("put", async () => {
      // The first host to decide wins; the others get its entry back. A lift between the
      // insert and the read makes the next round a new decision.
      for (;;) {
        const inserted = await db.query<Row>("INSERT INTO quarantine (ref, since, until, failures, last_error) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (ref) DO NOTHING RETURNING *",
          [entry.ref, entry.since, entry.until, entry.failures, JSON.stringify(entry.lastError)]);
        if (inserted.rows[0]) {
          await changed([entry.ref]);
          return entryOf(inserted.rows[0]);
        }
        const { rows } = await db.query<Row>("SELECT * FROM quarantine WHERE ref = $1", [entry.ref]);
        if (rows[0]) return entryOf(rows[0]);
      }
    }),
    list: (now) => guard("list", async () => {
      const { rows } = await db.query<Row>("SELECT * FROM quarantine WHERE until IS NULL OR until > $1 ORDER BY since, ref", [now]);
      return rows.map(entryOf);
    }),
    lift: (ref) => guard("lift", async () => {
      const { rows } = await db.query<Row>("DELETE FROM quarantine WHERE ref = $1 RETURNING *", [ref]);
      if (rows[0]) await changed([ref]);
      return rows[0] && entryOf(rows[0]);
    }),
    expire: (now) => guard("expire", async () => {
      const { rows } = await db.query<Row>("DELETE FROM quarantine WHERE until IS NOT NULL AND until <= $1 RETURNING *", [now]);
      await changed(rows.map((r) => r.ref));
      return rows.map(entryOf).sort((a, b) => a.since - b.since || a.ref.localeCompare(b.ref));
    }),
    close: async () => {},
  };
}

/**
 * Calls `refresh` whenever any host changes a quarantine entry (and after the listening
 * connection came back, since changes may have been missed meanwhile). Resolves with the
 * function that stops watching.
 */
export function watchQuarantine(db: PostgresEngine, refresh: () => void): Promise<() => Promise<void>> {
  return db.listen(QUARANTINE_CHANNEL, { onNotify: refresh, onReconnect: refresh });
}
