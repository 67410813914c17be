/**
 * The agents' door store on PostgreSQL, shared by every host of a fleet: a post reaching
 * any host takes the pre any host opened, once (a row lock taken with SKIP LOCKED: two
 * posts racing for one pre cannot both have it).
 */
import { int, postgresGuarded, type PostgresEngine } from "../storage/postgres.js";
import { claimText, DEFAULT_AGENT_DOOR_LIMITS, pairKeyText, postText, summaryOf, type AgentDoorLimits, type AgentDoorStore, type EventOutcome } from "./agent-door-store.js";

const guard = <T>(what: string, fn: () => Promise<T>): Promise<T> => postgresGuarded(`agent door: ${what}`, fn);

/** The door's store on `db` (already migrated: see openPostgresStores); `db` stays the caller's. */
export function postgresAgentDoor(db: PostgresEngine, limits: Partial<AgentDoorLimits> = {}): AgentDoorStore {
  const { ttlMs, max, maxPerKey } = { ...DEFAULT_AGENT_DOOR_LIMITS, ...limits };
  return {
    pairing: {
      open: (key, operationId, now) => guard("opening a pair", async () => {
        // A soft cap: two hosts opening at once may each see room for one more.
        const { rows } = await db.query(`INSERT INTO agent_pres (operation_id, pair_key, opened_at, key_id) SELECT $1, $2, $3, $4
          WHERE (SELECT COUNT(*) FROM agent_pres WHERE key_id = $4) < $5 ON CONFLICT (operation_id) DO NOTHING RETURNING 1`, [operationId, pairKeyText(key), now, key.keyId, maxPerKey]);
        if (rows.length === 1) return true;
        return (await db.query("SELECT 1 FROM agent_pres WHERE operation_id = $1", [operationId])).rows.length === 1;
      }),
      take: (key, postDigest, now) => guard("taking a pair", async () => {
        const text = pairKeyText(key);
        const seen = postText(text, postDigest);
        const { rows } = await db.query<{ operation_id: string }>(
          "DELETE FROM agent_pres WHERE seq = (SELECT seq FROM agent_pres WHERE pair_key = $1 ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING operation_id", [text]);
        if (rows[0]) {
          await db.query("INSERT INTO agent_posts (seen, at) VALUES ($1, $2) ON CONFLICT (seen) DO UPDATE SET at = excluded.at", [seen, now]);
          return { kind: "found" as const, operationId: rows[0].operation_id };
        }
        const known = await db.query("SELECT 1 FROM agent_posts WHERE seen = $1", [seen]);
        return known.rows.length > 0 ? { kind: "repeated" as const } : { kind: "missing" as const };
      }),
      claim: (key, now) => guard("claiming a tool-use id", async () => {
        // The posts' primary key decides: of two hosts inserting one claim, one inserts it.
        const { rows } = await db.query("INSERT INTO agent_posts (seen, at) VALUES ($1, $2) ON CONFLICT (seen) DO NOTHING RETURNING 1", [claimText(key), now]);
        return rows.length === 1;
      }),
      expire: (now) => guard("expiring pairs", async () => {
        await db.query("DELETE FROM agent_posts WHERE at <= $1", [now - ttlMs]);
        const stale = await db.query<{ operation_id: string; seq: string }>("DELETE FROM agent_pres WHERE opened_at <= $1 RETURNING operation_id, seq", [now - ttlMs]);
        const over = await db.query<{ operation_id: string; seq: string }>("DELETE FROM agent_pres WHERE seq IN (SELECT seq FROM agent_pres ORDER BY seq DESC OFFSET $1) RETURNING operation_id, seq", [max]);
        return [...stale.rows, ...over.rows].sort((a, b) => int(a.seq) - int(b.seq)).map((r) => r.operation_id);
      }),
    },
    events: {
      add: (e) => guard("recording an event", async () => {
        const { rows } = await db.query<{ seq: string }>("INSERT INTO agent_events (at, agent, event, space_id, outcome, code, body_digest, operation_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING seq",
          [e.at, e.agent, e.event, e.spaceId, e.outcome, e.code, e.bodyDigest, e.operationId]);
        await db.query(`INSERT INTO agent_event_counts (agent, event, space_id, count, at, outcome) VALUES ($1, $2, $3, 1, $4, $5)
          ON CONFLICT (agent, event, space_id) DO UPDATE SET count = agent_event_counts.count + 1, at = GREATEST(agent_event_counts.at, excluded.at),
            outcome = CASE WHEN excluded.at >= agent_event_counts.at THEN excluded.outcome ELSE agent_event_counts.outcome END`, [e.agent, e.event, e.spaceId ?? "", e.at, e.outcome]);
        await db.query("DELETE FROM agent_events WHERE seq <= $1", [int(rows[0]!.seq) - max]);
      }),
      summary: (spaceId) => guard("reading the status", async () => {
        const { rows } = spaceId === undefined
          ? await db.query<{ agent: string; event: string; count: string; at: string; outcome: string }>(`SELECT agent, event, SUM(count) AS count, MAX(at) AS at,
              (ARRAY_AGG(outcome ORDER BY at DESC))[1] AS outcome FROM agent_event_counts GROUP BY agent, event ORDER BY MAX(at) DESC`)
          : await db.query<{ agent: string; event: string; count: string; at: string; outcome: string }>("SELECT agent, event, count, at, outcome FROM agent_event_counts WHERE space_id = $1 ORDER BY at DESC", [spaceId]);
        return rows.map((r) => summaryOf({ agent: r.agent, event: r.event, count: int(r.count), at: int(r.at), outcome: r.outcome }));
      }),
      recent: (limit) => guard("reading events", async () => {
        const { rows } = await db.query<{ at: string; agent: string; event: string; space_id: string | null; outcome: string; code: string | null; body_digest: string | null; operation_id: string | null }>(
          "SELECT at, agent, event, space_id, outcome, code, body_digest, operation_id FROM agent_events ORDER BY seq DESC LIMIT $1", [limit]);
        return rows.map((r) => ({ at: int(r.at), agent: r.agent, event: r.event, spaceId: r.space_id, outcome: r.outcome as EventOutcome, code: r.code, bodyDigest: r.body_digest, operationId: r.operation_id }));
      }),
    },
    close: async () => {},
  };
}
