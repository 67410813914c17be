/** The agents' door store on SQLite: the same file as the records (`sluice.db`), or its own. */
import type Database from "better-sqlite3";
import { openSqlite, sqliteStoreError } from "../storage/sqlite-open.js";
import { migrateSqlite } from "../storage/sqlite-migrations.js";
import { whenFree } from "../storage/sqlite-busy.js";
import { SluiceError } from "../errors/sluice-error.js";
import { AGENT_DOOR_MIGRATIONS } from "./agent-door-migrations.js";
import { claimText, DEFAULT_AGENT_DOOR_LIMITS, pairKeyText, postText, summaryOf, type AgentDoorLimits, type AgentDoorStore, type AgentEventEntry, type EventOutcome } from "./agent-door-store.js";

interface EventRow { at: number; agent: string; event: string; space_id: string | null; outcome: string; code: string | null; body_digest: string | null; operation_id: string | null }

/** Opens the door's tables in `pathOrDb` (a file, or an open database whose owner closes it). */
export function openSqliteAgentDoor(pathOrDb: string | Database.Database, limits: Partial<AgentDoorLimits> = {}): AgentDoorStore {
  const { ttlMs, max, maxPerKey } = { ...DEFAULT_AGENT_DOOR_LIMITS, ...limits };
  const owned = typeof pathOrDb === "string";
  let db: Database.Database;
  if (typeof pathOrDb === "string") db = openSqlite(pathOrDb, { what: "agent door", migrations: [AGENT_DOOR_MIGRATIONS], busyMs: 0 });
  else {
    db = pathOrDb;
    try { migrateSqlite(db, [AGENT_DOOR_MIGRATIONS]); } catch (err) { throw sqliteStoreError(err, "agent door: migrating the database"); }
  }
  const q = {
    open: db.prepare<[string, string, number, string]>("INSERT OR IGNORE INTO agent_pres (operation_id, pair_key, opened_at, key_id) VALUES (?, ?, ?, ?)"),
    opened: db.prepare<[string], number>("SELECT 1 FROM agent_pres WHERE operation_id = ?").pluck(),
    ofKey: db.prepare<[string], number>("SELECT COUNT(*) FROM agent_pres WHERE key_id = ?").pluck(),
    first: db.prepare<[string], { seq: number; operation_id: string }>("SELECT seq, operation_id FROM agent_pres WHERE pair_key = ? ORDER BY seq LIMIT 1"),
    drop: db.prepare<[number]>("DELETE FROM agent_pres WHERE seq = ?"),
    seen: db.prepare<[string], number>("SELECT 1 FROM agent_posts WHERE seen = ?").pluck(),
    remember: db.prepare<[string, number]>("INSERT OR REPLACE INTO agent_posts (seen, at) VALUES (?, ?)"),
    claim: db.prepare<[string, number]>("INSERT OR IGNORE INTO agent_posts (seen, at) VALUES (?, ?)"),
    forget: db.prepare<[number]>("DELETE FROM agent_posts WHERE at <= ?"),
    stale: db.prepare<[number], { seq: number; operation_id: string }>("SELECT seq, operation_id FROM agent_pres WHERE opened_at <= ? ORDER BY seq"),
    over: db.prepare<[number], { seq: number; operation_id: string }>("SELECT seq, operation_id FROM agent_pres ORDER BY seq DESC LIMIT -1 OFFSET ?"),
    add: db.prepare<[number, string, string, string | null, string, string | null, string | null, string | null]>("INSERT INTO agent_events (at, agent, event, space_id, outcome, code, body_digest, operation_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"),
    trim: db.prepare<[number]>("DELETE FROM agent_events WHERE seq <= (SELECT MAX(seq) FROM agent_events) - ?"),
    count: db.prepare<[string, string, string, number, string]>(`INSERT INTO agent_event_counts (agent, event, space_id, count, at, outcome) VALUES (?, ?, ?, 1, ?, ?)
      ON CONFLICT (agent, event, space_id) DO UPDATE SET count = count + 1, at = excluded.at, outcome = excluded.outcome`),
    summary: db.prepare<[], { agent: string; event: string; count: number; at: number; outcome: string }>("SELECT agent, event, SUM(count) AS count, MAX(at) AS at, (SELECT c2.outcome FROM agent_event_counts c2 WHERE c2.agent = c.agent AND c2.event = c.event ORDER BY c2.at DESC LIMIT 1) AS outcome FROM agent_event_counts c GROUP BY agent, event ORDER BY at DESC"),
    inSpace: db.prepare<[string], { agent: string; event: string; count: number; at: number; outcome: string }>("SELECT agent, event, count, at, outcome FROM agent_event_counts WHERE space_id = ? ORDER BY at DESC"),
    recent: db.prepare<[number], EventRow>("SELECT at, agent, event, space_id, outcome, code, body_digest, operation_id FROM agent_events ORDER BY seq DESC LIMIT ?"),
  };
  const guard = <T>(what: string, fn: () => T): Promise<T> => whenFree(fn).catch((err: unknown) => {
    throw new SluiceError("STORE_UNAVAILABLE", `agent door: ${what} failed: ${(err as Error)?.message ?? String(err)}`, {}, { cause: err });
  });
  const open = db.transaction((operationId: string, key: string, now: number, keyId: string): boolean => {
    if (q.opened.get(operationId) !== undefined) return true;
    if (q.ofKey.get(keyId)! >= maxPerKey) return false;
    q.open.run(operationId, key, now, keyId);
    return true;
  });
  const take = db.transaction((key: string, seen: string, now: number) => {
    const row = q.first.get(key);
    if (!row) return q.seen.get(seen) === undefined ? { kind: "missing" as const } : { kind: "repeated" as const };
    q.drop.run(row.seq);
    q.remember.run(seen, now);
    return { kind: "found" as const, operationId: row.operation_id };
  });
  const expire = db.transaction((now: number) => {
    q.forget.run(now - ttlMs);
    const out = [...q.stale.all(now - ttlMs), ...q.over.all(max).reverse()];
    const ids: string[] = [];
    for (const r of out) { q.drop.run(r.seq); ids.push(r.operation_id); }
    return [...new Set(ids)];
  });
  const add = db.transaction((e: AgentEventEntry) => {
    q.add.run(e.at, e.agent, e.event, e.spaceId, e.outcome, e.code, e.bodyDigest, e.operationId);
    q.count.run(e.agent, e.event, e.spaceId ?? "", e.at, e.outcome);
    q.trim.run(max);
  });
  return {
    pairing: {
      open: (key, operationId, now) => guard("opening a pair", () => open(operationId, pairKeyText(key), now, key.keyId)),
      take: (key, postDigest, now) => guard("taking a pair", () => { const text = pairKeyText(key); return take(text, postText(text, postDigest), now); }),
      claim: (key, now) => guard("claiming a tool-use id", () => q.claim.run(claimText(key), now).changes === 1),
      expire: (now) => guard("expiring pairs", () => expire(now)),
    },
    events: {
      add: (e) => guard("recording an event", () => { add(e); }),
      summary: (spaceId) => guard("reading the status", () => (spaceId === undefined ? q.summary.all() : q.inSpace.all(spaceId)).map(summaryOf)),
      recent: (limit) => guard("reading events", () => q.recent.all(limit).map((r) => ({ at: r.at, agent: r.agent, event: r.event, spaceId: r.space_id, outcome: r.outcome as EventOutcome, code: r.code, bodyDigest: r.body_digest, operationId: r.operation_id }))),
    },
    close: async () => { if (owned && db.open) db.close(); },
  };
}
