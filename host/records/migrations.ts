/** The records' and the payload store's schemas, per engine: append-only (host/storage/migrations.ts runs them). */
import type { MigrationSet } from "../storage/migrations.js";

export const RECORDS_MIGRATIONS: MigrationSet = {
  component: "records",
  migrations: {
    sqlite: [
      {
        version: 1, name: "records",
        sql: `CREATE TABLE operation_records (
           operation_id TEXT PRIMARY KEY,
           phase TEXT NOT NULL,
           real_status TEXT NOT NULL,
           created_at INTEGER NOT NULL,
           record TEXT NOT NULL
         ) STRICT;
         CREATE INDEX operation_records_status ON operation_records (real_status);
         CREATE INDEX operation_records_created ON operation_records (created_at);
         CREATE TABLE operation_results (
           operation_id TEXT PRIMARY KEY REFERENCES operation_records (operation_id) ON DELETE CASCADE,
           result TEXT NOT NULL
         ) STRICT;
         CREATE TABLE hook_audit (
           seq INTEGER PRIMARY KEY AUTOINCREMENT,
           operation_id TEXT NOT NULL,
           binding_id TEXT NOT NULL,
           hook_ref TEXT NOT NULL,
           code_sha256 TEXT NOT NULL,
           point TEXT NOT NULL,
           phase TEXT NOT NULL,
           revision INTEGER NOT NULL,
           outcome TEXT NOT NULL,
           input_digest TEXT NOT NULL,
           output_digest TEXT NOT NULL,
           patch_digest TEXT,
           duration_ms REAL NOT NULL,
           error_code TEXT,
           at INTEGER NOT NULL
         ) STRICT;
         CREATE INDEX hook_audit_operation ON hook_audit (operation_id);
         CREATE INDEX hook_audit_binding ON hook_audit (binding_id, at);
         CREATE INDEX hook_audit_at ON hook_audit (at);`,
      },
      {
        // Real results are kept only while their operation can resume: stamped, so they expire.
        version: 2, name: "result retention",
        sql: `ALTER TABLE operation_results ADD COLUMN stored_at INTEGER NOT NULL DEFAULT 0;
         UPDATE operation_results SET stored_at = CAST(strftime('%s', 'now') AS INTEGER) * 1000;
         DELETE FROM operation_results WHERE operation_id IN (SELECT operation_id FROM operation_records WHERE phase = 'finished');
         CREATE INDEX operation_results_stored ON operation_results (stored_at);`,
      },
      // Each guest hook's fuel (NULL for in-process hooks and rows written before).
      { version: 3, name: "audit fuel", sql: "ALTER TABLE hook_audit ADD COLUMN fuel INTEGER;" },
      {
        // The host running an operation, and every host's lease.
        version: 4, name: "owners and leases",
        sql: `ALTER TABLE operation_records ADD COLUMN owner TEXT;
         CREATE INDEX operation_records_owner ON operation_records (owner);
         CREATE TABLE operation_owners (owner TEXT PRIMARY KEY, lease_until INTEGER NOT NULL, pid INTEGER, machine TEXT) STRICT;`,
      },
      {
        // Every index is pages in each write's transaction (an insert touched five
        // B-trees, ~11 WAL frames an operation). No query looks a record up by owner or scans
        // every status; recovery looks for the unfinished ones, which stay few: one small
        // index of those (an operation enters it when opened, leaves it when finished).
        version: 5, name: "lean record indexes",
        sql: `DROP INDEX operation_records_status;
         DROP INDEX operation_records_owner;
         CREATE INDEX operation_records_open ON operation_records (real_status) WHERE phase != 'finished';`,
      },
      // What each guest hook logged: counts by level, and the payload store's ref of the lines when it keeps them (JSON; NULL when nothing).
      { version: 6, name: "audit logs", sql: "ALTER TABLE hook_audit ADD COLUMN logs TEXT;" },
    ],
    postgres: [
      {
        version: 1, name: "records",
        sql: `CREATE TABLE operation_records (
           operation_id TEXT PRIMARY KEY,
           phase TEXT NOT NULL,
           real_status TEXT NOT NULL,
           created_at BIGINT NOT NULL,
           record TEXT NOT NULL,
           owner TEXT,
           seq BIGSERIAL NOT NULL
         );
         CREATE INDEX operation_records_status ON operation_records (real_status);
         CREATE INDEX operation_records_created ON operation_records (created_at);
         CREATE INDEX operation_records_owner ON operation_records (owner);
         CREATE TABLE operation_results (
           operation_id TEXT PRIMARY KEY REFERENCES operation_records (operation_id) ON DELETE CASCADE,
           result TEXT NOT NULL,
           stored_at BIGINT NOT NULL
         );
         CREATE INDEX operation_results_stored ON operation_results (stored_at);
         CREATE TABLE hook_audit (
           seq BIGSERIAL PRIMARY KEY,
           operation_id TEXT NOT NULL,
           binding_id TEXT NOT NULL,
           hook_ref TEXT NOT NULL,
           code_sha256 TEXT NOT NULL,
           point TEXT NOT NULL,
           phase TEXT NOT NULL,
           revision INTEGER NOT NULL,
           outcome TEXT NOT NULL,
           input_digest TEXT NOT NULL,
           output_digest TEXT NOT NULL,
           patch_digest TEXT,
           duration_ms DOUBLE PRECISION NOT NULL,
           fuel BIGINT,
           error_code TEXT,
           at BIGINT NOT NULL
         );
         CREATE INDEX hook_audit_operation ON hook_audit (operation_id);
         CREATE INDEX hook_audit_binding ON hook_audit (binding_id, at);
         CREATE INDEX hook_audit_at ON hook_audit (at);
         CREATE TABLE operation_owners (owner TEXT PRIMARY KEY, lease_until BIGINT NOT NULL);`,
      },
      { version: 2, name: "audit logs", sql: "ALTER TABLE hook_audit ADD COLUMN logs TEXT;" },
    ],
  },
};

export const PAYLOAD_MIGRATIONS: MigrationSet = {
  component: "payloads",
  migrations: {
    sqlite: [{ version: 1, name: "payloads", sql: "CREATE TABLE protected_payloads (ref TEXT PRIMARY KEY, body TEXT NOT NULL, expires_at INTEGER NOT NULL) STRICT; CREATE INDEX protected_payloads_expiry ON protected_payloads (expires_at);" }],
    postgres: [{ version: 1, name: "payloads", sql: "CREATE TABLE protected_payloads (ref TEXT PRIMARY KEY, body TEXT NOT NULL, expires_at BIGINT NOT NULL); CREATE INDEX protected_payloads_expiry ON protected_payloads (expires_at);" }],
  },
};
