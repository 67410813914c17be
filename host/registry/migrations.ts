/** The registry's schema, per engine: append-only (host/storage/migrations.ts runs it). */
import type { MigrationSet } from "../storage/migrations.js";

/** The registry database's migrations per engine, oldest first. */
export const REGISTRY_MIGRATIONS: MigrationSet = {
  component: "registry",
  migrations: {
    sqlite: [
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
      {
        // Where a version was built from (a Git repository and commit, as JSON); null for an upload.
        version: 2,
        name: "plugin-source",
        sql: "ALTER TABLE plugins ADD COLUMN source TEXT;",
      },
    ],
    postgres: [
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
            seq BIGSERIAL NOT NULL,
            PRIMARY KEY (id, version)
          );
          CREATE TABLE bindings (
            id TEXT PRIMARY KEY,
            position INTEGER NOT NULL,
            spec TEXT NOT NULL,
            registered_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
          );
          CREATE TABLE releases (
            revision INTEGER PRIMARY KEY,
            order_mode TEXT NOT NULL,
            bindings TEXT NOT NULL,
            based_on INTEGER,
            note TEXT NOT NULL,
            created_at TEXT NOT NULL
          );
          CREATE TABLE activations (
            seq BIGSERIAL PRIMARY KEY,
            revision INTEGER NOT NULL REFERENCES releases(revision),
            reason TEXT NOT NULL,
            activated_at TEXT NOT NULL
          );
          CREATE TABLE settings (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
          );
        `,
      },
      {
        // Plugin code, content-addressed, in the shared database: a host that never saw an upload loads it from here.
        version: 2,
        name: "artifacts",
        sql: "CREATE TABLE artifacts (sha256 TEXT PRIMARY KEY, bytes BYTEA NOT NULL, created_at TEXT NOT NULL);",
      },
      {
        version: 3,
        name: "plugin-source",
        sql: "ALTER TABLE plugins ADD COLUMN source TEXT;",
      },
    ],
  },
};
