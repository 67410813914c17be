/**
 * `GET /api/v1/fleet`: every host serving this database, with the revision each serves, for
 * the console's overview. On PostgreSQL each host writes a heartbeat row (its id, API URL
 * and release status) every few seconds into sluice_console_hosts, and the route lists the
 * rows seen within the last 30 s; on SQLite (one host) it lists this host alone.
 */
import type { FastifyInstance } from "fastify";
import type { Registry } from "../../registry/registry.js";
import type { MigrationSet } from "../../storage/migrations.js";
import { migratePostgres } from "../../storage/postgres.js";
import { errorResponses } from "../schemas.js";
import { VIEWER } from "../roles.js";

/** The heartbeat table, migrated by the one runner on a host's first beat (two hosts at once take its lock in turn). */
export const FLEET_SCHEMA: MigrationSet = {
  component: "console-fleet",
  migrations: {
    sqlite: [],
    postgres: [{ version: 1, name: "console hosts", sql: "CREATE TABLE sluice_console_hosts (host_id text PRIMARY KEY, url text NOT NULL, active_revision integer NOT NULL, serving_revision integer NOT NULL, release_error text, seen_at timestamptz NOT NULL)" }],
  },
};

const FLEET = {
  type: "object", additionalProperties: false, required: ["this_host", "shared", "items"],
  properties: {
    this_host: { type: "string", description: "The id of the host answering." },
    shared: { type: "boolean", description: "True on PostgreSQL (hosts share the database); false on SQLite (this host alone)." },
    items: {
      type: "array", description: "This host first, then the others seen within the last 30 s, by URL.",
      items: {
        type: "object", additionalProperties: false, required: ["host_id", "url", "active_revision", "serving_revision", "release_error", "seen_at"],
        properties: {
          host_id: { type: "string" }, url: { type: "string", description: "The host's management API." },
          active_revision: { type: "integer" }, serving_revision: { type: "integer" },
          release_error: { type: ["string", "null"], description: "The error code of a release the host could not load." },
          seen_at: { type: "string", format: "date-time", description: "Its last heartbeat." },
        },
      },
    },
  },
} as const;

const HEARTBEAT_MS = 2_000;
const STALE_MS = 30_000;

interface HostRow {
  host_id: string;
  url: string;
  active_revision: number;
  serving_revision: number;
  release_error: string | null;
  seen_at: string;
}

export function fleetRoutes(app: FastifyInstance, registry: Registry, url: () => string): void {
  const self = async (): Promise<HostRow> => {
    const s = await registry.releaseStatus();
    return { host_id: registry.host.id, url: url(), active_revision: s.active_revision, serving_revision: s.serving_revision, release_error: s.error?.code ?? null, seen_at: new Date().toISOString() };
  };
  const db = registry.shared?.db;
  let timer: NodeJS.Timeout | undefined;
  if (db) {
    let ready: Promise<unknown> | undefined;
    const beat = async (): Promise<void> => {
      ready ??= migratePostgres(db, [FLEET_SCHEMA]);
      await ready;
      const r = await self();
      await db.query(
        `INSERT INTO sluice_console_hosts (host_id, url, active_revision, serving_revision, release_error, seen_at) VALUES ($1, $2, $3, $4, $5, now())
         ON CONFLICT (host_id) DO UPDATE SET url = EXCLUDED.url, active_revision = EXCLUDED.active_revision, serving_revision = EXCLUDED.serving_revision, release_error = EXCLUDED.release_error, seen_at = now()`,
        [r.host_id, r.url, r.active_revision, r.serving_revision, r.release_error],
      );
    };
    // A missed beat is only a stale row in the overview: never an error of the server.
    const tick = (): void => { beat().catch(() => { ready = undefined; }); };
    app.addHook("onListen", async () => { tick(); timer = setInterval(tick, HEARTBEAT_MS); timer.unref(); });
    app.addHook("onClose", async () => {
      clearInterval(timer);
      await db.query("DELETE FROM sluice_console_hosts WHERE host_id = $1", [registry.host.id]).catch(() => undefined);
    });
  }

  app.get("/api/v1/fleet", {
    config: VIEWER,
    schema: { tags: ["status"], summary: "The hosts serving this database (each host's id, API URL, serving and active revision, last heartbeat); this host alone on SQLite.", response: { 200: FLEET, ...errorResponses() } },
  }, async () => {
    const me = await self();
    if (!db) return { this_host: me.host_id, shared: false, items: [me] };
    const rows = await db.query<HostRow & { seen_at: Date }>(
      `SELECT host_id, url, active_revision, serving_revision, release_error, seen_at FROM sluice_console_hosts WHERE seen_at > now() - make_interval(secs => $1) ORDER BY url`,
      [STALE_MS / 1000],
    ).catch(() => ({ rows: [] as (HostRow & { seen_at: Date })[] }));
    const others = rows.rows.filter((r) => r.host_id !== me.host_id).map((r) => ({ ...r, seen_at: new Date(r.seen_at).toISOString() }));
    return { this_host: me.host_id, shared: true, items: [me, ...others] };
  });
}
