/**
 * The database schema as an append-only list of migrations. A later feature adds a table
 * by appending an entry; a migration that has run is never edited.
 */
import type { Database } from "better-sqlite3";

/** One schema change of the registry's database, applied once, in order. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The registry database's migrations, oldest first. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "registry",
    sql: `
      CREATE TABLE plugins (
        id TEXT NOT NULL,
        version TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        size INTEGER NOT NULL,
        manifest TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (id, version)
      ) STRICT;
      CREATE TABLE bindings (
        id TEXT PRIMARY KEY,
        position INTEGER NOT NULL,
        spec TEXT NOT NULL,
        registered_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) STRICT;
      CREATE TABLE releases (
        revision INTEGER PRIMARY KEY,
        order_mode TEXT NOT NULL,
        bindings TEXT NOT NULL,
        based_on INTEGER,
        note TEXT NOT NULL,
        created_at TEXT NOT NULL
      ) STRICT;
      CREATE TABLE activations (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        revision INTEGER NOT NULL REFERENCES releases(revision),
        reason TEXT NOT NULL,
        activated_at TEXT NOT NULL
      ) STRICT;
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;
    `,
  },
];

/** Applies the migrations not yet applied, each in its own transaction. */
export function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): void {
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL) STRICT");
  const applied = new Set((db.prepare("SELECT version FROM schema_migrations").all() as { version: number }[]).map((r) => r.version));
  const record = db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)");
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name, new Date().toISOString());
    }).immediate();
  }
}
