/** Quarantine decisions on SQLite, shared by every process opening the file. */
import { SluiceError } from "../errors/sluice-error.js";
import { openSqlite } from "../storage/sqlite-open.js";
import type { MigrationSet } from "../storage/migrations.js";
import { whenFree } from "../storage/sqlite-busy.js";
import type { QuarantineEntry } from "./quarantine.js";
import type { QuarantineStore } from "./quarantine-store.js";

export const QUARANTINE_MIGRATIONS: MigrationSet = {
  component: "quarantine",
  migrations: {
    sqlite: [{ version: 1, name: "quarantine", sql: "CREATE TABLE quarantine (ref TEXT PRIMARY KEY, since INTEGER NOT NULL, until INTEGER, entry TEXT NOT NULL) STRICT;" }],
    postgres: [{ version: 1, name: "quarantine", sql: "CREATE TABLE quarantine (ref TEXT PRIMARY KEY, since BIGINT NOT NULL, until BIGINT, entry TEXT NOT NULL);" }],
  },
};

export function openSqliteQuarantineStore(file: string): QuarantineStore {
  const db = openSqlite(file, { what: "quarantine store", migrations: [QUARANTINE_MIGRATIONS], busyMs: 0 });
  const q = {
    insert: db.prepare("INSERT INTO quarantine (ref, since, until, entry) VALUES (?, ?, ?, ?) ON CONFLICT (ref) DO NOTHING"),
    get: db.prepare("SELECT entry FROM quarantine WHERE ref = ?"),
    live: db.prepare("SELECT entry FROM quarantine WHERE until IS NULL OR until > ? ORDER BY since, ref"),
    ended: db.prepare("SELECT entry FROM quarantine WHERE until IS NOT NULL AND until <= ? ORDER BY since, ref"),
    drop: db.prepare("DELETE FROM quarantine WHERE ref = ?"),
  };
  const parse = (rows: unknown[]) => (rows as { entry: string }[]).map((r) => JSON.parse(r.entry) as QuarantineEntry);
  const guard = <T>(what: string, fn: () => T): Promise<T> => whenFree(fn).catch((err: unknown) => {
    throw new SluiceError("STORE_UNAVAILABLE", `quarantine store: ${what} failed: ${(err as Error)?.message ?? String(err)}`, {}, { cause: err });
  });
  return {
    put: (entry) => guard("put", () => db.transaction(() => {
      q.insert.run(entry.ref, entry.since, entry.until, JSON.stringify(entry));
      return parse([q.get.get(entry.ref)])[0]!;
    }).immediate()),
    list: (now) => guard("list", () => parse(q.live.all(now))),
    lift: (ref) => guard("lift", () => db.transaction(() => {
      const row = q.get.get(ref);
      if (!row) return undefined;
      q.drop.run(ref);
      return parse([row])[0];
    }).immediate()),
    expire: (now) => guard("expire", () => db.transaction(() => {
      const ended = parse(q.ended.all(now));
      for (const e of ended) q.drop.run(e.ref);
      return ended;
    }).immediate()),
    close: async () => { if (db.open) db.close(); },
  };
}
