/**
 * One migration runner for every store and engine. A store declares its schema as a
 * {@link MigrationSet}: a component name and, per engine dialect, an append-only list of
 * numbered migrations (a migration that has run is never edited; a new table is a new
 * entry). Applied versions are kept in one `schema_migrations (component, version, name,
 * applied_at)` table. The runner runs on open: everything pending, in one transaction that
 * holds the engine's exclusive lock first (SQLite: BEGIN IMMEDIATE; PostgreSQL:
 * `pg_advisory_xact_lock(MIGRATION_LOCK)`) and re-reads what is applied under that lock,
 * so two processes starting at once never both migrate.
 *
 * The steps are written once ({@link migrationSteps}); {@link runMigrations} drives them
 * over an async engine (PostgreSQL), {@link runMigrationsSync} over a synchronous one
 * (better-sqlite3, so opening a SQLite store stays synchronous).
 */

/** The SQL dialects the stores are written for. */
export type Dialect = "sqlite" | "postgres";

/** One schema change, applied once, in order. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** A store's schema: its numbered migrations per engine dialect. */
export interface MigrationSet {
  /** Names the store's rows in `schema_migrations` (e.g. "registry", "records"). */
  component: string;
  migrations: Readonly<Record<Dialect, readonly Migration[]>>;
}

/** The advisory lock key PostgreSQL takes while migrating ("sluicemig", within int8). */
export const MIGRATION_LOCK = 0x736c7569636d69;

/** One statement the runner needs run: `exec` returns nothing, `query` its rows. Parameters are `?` (SQLite) or `$n` (PostgreSQL). */
export type MigrationStep = { kind: "exec"; sql: string } | { kind: "query"; sql: string; params: readonly unknown[] };

export interface MigrationTarget {
  readonly dialect: Dialect;
  /** Runs `fn` in one transaction holding the engine's exclusive lock: committed when it resolves, rolled back when it rejects. */
  exclusive<T>(fn: (run: (step: MigrationStep) => Promise<unknown[]>) => Promise<T>): Promise<T>;
}

export interface SyncMigrationTarget {
  readonly dialect: Dialect;
  exclusive<T>(fn: (run: (step: MigrationStep) => unknown[]) => T): T;
}

const TABLE: Record<Dialect, string> = {
  sqlite: "CREATE TABLE IF NOT EXISTS schema_migrations (component TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at TEXT NOT NULL, PRIMARY KEY (component, version)) STRICT",
  postgres: "CREATE TABLE IF NOT EXISTS schema_migrations (component TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at TEXT NOT NULL, PRIMARY KEY (component, version))",
};

/** Versions 1, 2, 3… in order, per dialect: a gap or a duplicate is a programming error, refused before anything runs. */
export function checkMigrationSet(set: MigrationSet): void {
  for (const [dialect, list] of Object.entries(set.migrations)) {
    list.forEach((m, i) => {
      if (m.version !== i + 1) throw new Error(`migrations of ${set.component} (${dialect}): entry ${i} has version ${m.version}, expected ${i + 1}; versions are numbered 1, 2, 3… and never reordered`);
    });
  }
}

/**
 * The runner's steps, run inside the exclusive transaction: `before` (an engine's own
 * adoption of older bookkeeping), the table, then each pending migration and its row.
 * Returns the `component@version` entries applied now.
 */
export function* migrationSteps(dialect: Dialect, sets: readonly MigrationSet[], before: readonly MigrationStep[] = []): Generator<MigrationStep, string[], unknown[]> {
  sets.forEach(checkMigrationSet);
  const p = (n: number) => (dialect === "postgres" ? `$${n}` : "?");
  for (const step of before) yield step;
  yield { kind: "exec", sql: TABLE[dialect] };
  const applied: string[] = [];
  for (const set of sets) {
    const rows = yield { kind: "query", sql: `SELECT version FROM schema_migrations WHERE component = ${p(1)}`, params: [set.component] };
    const done = new Set(rows.map((r) => Number((r as { version: unknown }).version)));
    for (const m of set.migrations[dialect]) {
      if (done.has(m.version)) continue;
      yield { kind: "exec", sql: m.sql };
      yield { kind: "query", sql: `INSERT INTO schema_migrations (component, version, name, applied_at) VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)})`, params: [set.component, m.version, m.name, new Date().toISOString()] };
      applied.push(`${set.component}@${m.version}`);
    }
  }
  return applied;
}

/** Applies what is pending of `sets` on an async engine, in one exclusive transaction. */
export function runMigrations(target: MigrationTarget, sets: readonly MigrationSet[], before: readonly MigrationStep[] = []): Promise<string[]> {
  return target.exclusive(async (run) => {
    const steps = migrationSteps(target.dialect, sets, before);
    let next = steps.next([]);
    while (!next.done) next = steps.next(await run(next.value));
    return next.value;
  });
}

/** The same on a synchronous engine. */
export function runMigrationsSync(target: SyncMigrationTarget, sets: readonly MigrationSet[], before: readonly MigrationStep[] = []): string[] {
  return target.exclusive((run) => {
    const steps = migrationSteps(target.dialect, sets, before);
    let next = steps.next([]);
    while (!next.done) next = steps.next(run(next.value));
    return next.value;
  });
}
