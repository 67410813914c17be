/**
 * The migration runner on better-sqlite3: one IMMEDIATE transaction (SQLite's write lock,
 * so a second process opening the file at the same moment waits, then finds nothing to do).
 * It first adopts the bookkeeping of earlier releases (a `schema_migrations` without
 * components, `records_migrations`, `payload_migrations`), so existing data folders keep
 * their schema without running anything twice.
 */
import type Database from "better-sqlite3";
import { runMigrationsSync, type MigrationSet, type MigrationStep } from "./migrations.js";

export function migrateSqlite(db: Database.Database, sets: readonly MigrationSet[]): string[] {
  const run = (step: MigrationStep): unknown[] => {
    if (step.kind === "exec") { db.exec(step.sql); return []; }
    const statement = db.prepare(step.sql);
    if (statement.reader) return statement.all(...step.params);
    statement.run(...step.params);
    return [];
  };
  return runMigrationsSync({
    dialect: "sqlite",
    exclusive: (fn) => db.transaction(() => { adoptLegacy(db, sets); return fn(run); }).immediate(),
  }, sets);
}

const LEGACY_TABLES: readonly [table: string, component: string][] = [["records_migrations", "records"], ["payload_migrations", "payloads"]];

function adoptLegacy(db: Database.Database, sets: readonly MigrationSet[]): void {
  const columns = (table: string) => (db.prepare("SELECT name FROM pragma_table_info(?)").all(table) as { name: string }[]).map((c) => c.name);
  const legacy: { component: string; version: number; applied_at: string }[] = [];
  const registry = columns("schema_migrations");
  if (registry.length > 0 && !registry.includes("component")) {
    legacy.push(...(db.prepare("SELECT 'registry' AS component, version, applied_at FROM schema_migrations").all() as typeof legacy));
    db.exec("DROP TABLE schema_migrations");
  }
  for (const [table, component] of LEGACY_TABLES) {
    if (columns(table).length === 0) continue;
    legacy.push(...(db.prepare(`SELECT ? AS component, version, applied_at FROM ${table}`).all(component) as typeof legacy));
    db.exec(`DROP TABLE ${table}`);
  }
  if (legacy.length === 0) return;
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (component TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at TEXT NOT NULL, PRIMARY KEY (component, version)) STRICT");
  const insert = db.prepare("INSERT OR IGNORE INTO schema_migrations (component, version, name, applied_at) VALUES (?, ?, ?, ?)");
  for (const row of legacy) {
    const name = sets.find((s) => s.component === row.component)?.migrations.sqlite[row.version - 1]?.name ?? "adopted";
    insert.run(row.component, row.version, name, row.applied_at);
  }
}
