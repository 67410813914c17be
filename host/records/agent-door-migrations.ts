/** The agents' door tables (agent-door-store.ts), per engine. */
import type { MigrationSet } from "../storage/migrations.js";

export const AGENT_DOOR_MIGRATIONS: MigrationSet = {
  component: "agent-door",
  migrations: {
    sqlite: [{
      version: 1, name: "agent door pairing and event log",
      sql: `CREATE TABLE agent_pres (
          seq INTEGER PRIMARY KEY AUTOINCREMENT, operation_id TEXT NOT NULL UNIQUE, pair_key TEXT NOT NULL, opened_at INTEGER NOT NULL
        ) STRICT;
        CREATE INDEX agent_pres_key ON agent_pres (pair_key, seq);
        CREATE TABLE agent_posts (seen TEXT PRIMARY KEY, at INTEGER NOT NULL) STRICT;
        CREATE INDEX agent_posts_at ON agent_posts (at);
        CREATE TABLE agent_events (
          seq INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, agent TEXT NOT NULL, event TEXT NOT NULL, space_id TEXT,
          outcome TEXT NOT NULL, code TEXT, body_digest TEXT, operation_id TEXT
        ) STRICT;
        CREATE TABLE agent_event_counts (
          agent TEXT NOT NULL, event TEXT NOT NULL, space_id TEXT NOT NULL, count INTEGER NOT NULL, at INTEGER NOT NULL, outcome TEXT NOT NULL,
          PRIMARY KEY (agent, event, space_id)
        ) STRICT;`,
    }, {
      version: 2, name: "agent door pres per hooks key",
      sql: `ALTER TABLE agent_pres ADD COLUMN key_id TEXT NOT NULL DEFAULT '';
        CREATE INDEX agent_pres_key_id ON agent_pres (key_id);`,
    }],
    postgres: [{
      version: 1, name: "agent door pairing and event log",
      sql: `CREATE TABLE agent_pres (
          seq BIGSERIAL PRIMARY KEY, operation_id TEXT NOT NULL UNIQUE, pair_key TEXT NOT NULL, opened_at BIGINT NOT NULL
        );
        CREATE INDEX agent_pres_key ON agent_pres (pair_key, seq);
        CREATE TABLE agent_posts (seen TEXT PRIMARY KEY, at BIGINT NOT NULL);
        CREATE INDEX agent_posts_at ON agent_posts (at);
        CREATE TABLE agent_events (
          seq BIGSERIAL PRIMARY KEY, at BIGINT NOT NULL, agent TEXT NOT NULL, event TEXT NOT NULL, space_id TEXT,
          outcome TEXT NOT NULL, code TEXT, body_digest TEXT, operation_id TEXT
        );
        CREATE TABLE agent_event_counts (
          agent TEXT NOT NULL, event TEXT NOT NULL, space_id TEXT NOT NULL, count BIGINT NOT NULL, at BIGINT NOT NULL, outcome TEXT NOT NULL,
          PRIMARY KEY (agent, event, space_id)
        );`,
    }, {
      version: 2, name: "agent door pres per hooks key",
      sql: `ALTER TABLE agent_pres ADD COLUMN key_id TEXT NOT NULL DEFAULT '';
        CREATE INDEX agent_pres_key_id ON agent_pres (key_id);`,
    }],
  },
};
