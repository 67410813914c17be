/**
 * Quarantine decisions on PostgreSQL, shared by every host of a fleet. Each change (a
 * decision, a lift, an expiry) NOTIFYs {@link QUARANTINE_CHANNEL} when it commits, so
 * every host re-reads the entries at once instead of at its next periodic refresh.
 */
import { postgresGuarded, type PostgresEngine } from "../storage/postgres.js";
import type { QuarantineEntry } from "./quarantine.js";
import type { QuarantineStore } from "./quarantine-store.js";

/** Channel of quarantine changes; the payload is the plugin ref. */
export const QUARANTINE_CHANNEL = "sluice_quarantine";

// The schema is the quarantine store's own migration set (sqlite-quarantine-store.ts): the entry as JSON beside its keys.
type Row = { ref: string; entry: string };
const entryOf = (r: Row): QuarantineEntry => JSON.parse(r.entry) as QuarantineEntry;

const guard = <T>(what: string, fn: () => Promise<T>): Promise<T> => postgresGuarded(`quarantine store: ${what}`, fn);

/** The quarantine store on `db` (already migrated: see openPostgresStores); `db` stays the caller's. */
export function postgresQuarantineStore(db: PostgresEngine): QuarantineStore {
  const changed = async (refs: readonly string[]) => { for (const ref of refs) await db.notify(QUARANTINE_CHANNEL, ref); };
  return {
    put: (entry) => guard("put", async () => {
      // The first host to decide wins; the others get its entry back. A lift between the
      // insert and the read makes the next round a new decision.
      for (;;) {
        const inserted = await db.query<Row>("INSERT INTO quarantine (ref, since, until, entry) VALUES ($1, $2, $3, $4) ON CONFLICT (ref) DO NOTHING RETURNING *",
          [entry.ref, entry.since, entry.until, JSON.stringify(entry)]);
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
      return rows.map(entryOf).sort((a, b) => a.since - b.since || (a.ref < b.ref ? -1 : a.ref > b.ref ? 1 : 0));
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
