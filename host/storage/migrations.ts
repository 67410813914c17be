/**
 * One migration runner for every store and engine. A store declares its schema as a
 * {@link MigrationSet}: a component name and, per engine dialect, an append-only list of
 * numbered migrations (a migration that has run is never edited; a new table is a new
 * entry). Applied versions are kept in one `schema_migrations (component, version, name,
 * applied_at)` table. {@link runMigrations} runs on open: everything pending, in one
 * transaction that holds the engine's exclusive lock first (SQLite: BEGIN IMMEDIATE;
 * PostgreSQL: `pg_advisory_xact_lock(MIGRATION_LOCK)`), re-reading what is applied under
 * that lock, so two processes starting at once never both migrate.
 */

export type Dialect = "sqlite" | "postgres";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export interface MigrationSet {
  /** Names the store's rows in `schema_migrations` (e.g. "registry", "records"). */
  component: string;
  migrations: Readonly<Record<Dialect, readonly Migration[]>>;
}

/** The advisory lock key PostgreSQL takes while migrating ("sluicemig"). */
export const MIGRATION_LOCK = 0x736c7569636d6967;

/** What an engine gives the runner: statements run inside its exclusive migration transaction. */
export interface MigrationSession {
  /** Runs SQL of one or more statements, no results. */
  exec(sql: string): Promise<void>;
  /** Rows of a query with positional `?` (SQLite) or `$1` (PostgreSQL) parameters. */
  query<R>(sql: string, params: readonly unknown[]): Promise<R[]>;
}

export interface MigrationTarget {
  readonly dialect: Dialect;
  /** Runs `fn` in one transaction holding the engine's exclusive lock; commits when it resolves, rolls back when it rejects. */
  exclusive<T>(fn: (session: MigrationSession) => Promise<T>): Promise<T>;
}

const TABLE: Record<Dialect, string> = {
  sqlite: "CREATE TABLE IF NOT EXISTS schema_migrations (component TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at TEXT NOT NULL, PRIMARY KEY (component, version)) STRICT",
  postgres: "CREATE TABLE IF NOT EXISTS schema_migrations (component TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at TEXT NOT NULL, PRIMARY KEY (component, version))",
};

/** Checks a set once: versions 1, 2, 3… in order, per dialect (a gap or duplicate is a programming error). */
function checkSet(set: MigrationSet): void {
  for (const [dialect, list] of Object.entries(set.migrations)) {
    list.forEach((m, i) => {
      if (m.version !== i + 1) throw new Error(`migrations of ${set.component} (${dialect}): entry ${i} has version ${m.version}, expected ${i + 1}; versions are numbered 1, 2, 3… and never reordered`);
    });
  }
}

/**
 * Applies the pending migrations of `sets` on `target`, all in one transaction; returns
 * the `component@version` entries applied now (empty when the schema was current).
 */
export async function runMigrations(target: MigrationTarget, sets: readonly MigrationSet[], adopt?: (session: MigrationSession) => Promise<void>): Promise<string[]> {
  sets.forEach(checkSet);
  const param = (n: number) => (target.dialect === "postgres" ? `$${n}` : "?");
  return target.exclusive(async (session) => {
    await adopt?.(session);
    await session.exec(TABLE[target.dialect]);
    const applied: string[] = [];
    for (const set of sets) {
      const done = new Set((await session.query<{ version: number }>(`SELECT version FROM schema_migrations WHERE component = ${param(1)}`, [set.component])).map((r) => Number(r.version)));
      for (const m of set.migrations[target.dialect]) {
        if (done.has(m.version)) continue;
        await session.exec(m.sql);
        await session.query(`INSERT INTO schema_migrations (component, version, name, applied_at) VALUES (${param(1)}, ${param(2)}, ${param(3)}, ${param(4)})`, [set.component, m.version, m.name, new Date().toISOString()]);
        applied.push(`${set.component}@${m.version}`);
      }
    }
    return applied;
  });
}
