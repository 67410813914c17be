/**
 * Every event the door answered: which agent, which event, when, how it was answered, and
 * for a refused one why, with the body's keyed digest (never its content). It answers
 * `GET /api/v1/agents/status`.
 */
import type { AgentEventEntry, AgentEventLog, EventOutcome, EventSummary } from "../records/agent-door-store.js";

export type { AgentEventEntry, AgentEventLog, EventOutcome, EventSummary } from "../records/agent-door-store.js";

/** Bounded: the newest `max` entries, and counts of every (agent, event, space). */
export function memoryEventLog(max = 10_000): AgentEventLog {
  const entries: AgentEventEntry[] = [];
  const counts = new Map<string, { agent: string; event: string; spaceId: string | null; count: number; at: number; outcome: EventOutcome }>();
  return {
    async add(e) {
      entries.push(e);
      if (entries.length > max) entries.splice(0, entries.length - max);
      const k = `${e.agent}\u0000${e.event}\u0000${e.spaceId ?? ""}`;
      const c = counts.get(k);
      if (c) { c.count++; c.at = e.at; c.outcome = e.outcome; } else counts.set(k, { agent: e.agent, event: e.event, spaceId: e.spaceId, count: 1, at: e.at, outcome: e.outcome });
    },
    async summary(spaceId) {
      const merged = new Map<string, EventSummary & { at: number }>();
      for (const c of counts.values()) {
        if (spaceId !== undefined && c.spaceId !== spaceId) continue;
        const k = `${c.agent}\u0000${c.event}`;
        const m = merged.get(k);
        if (!m) merged.set(k, { agent: c.agent, event: c.event, count: c.count, at: c.at, lastSeenAt: new Date(c.at).toISOString(), lastOutcome: c.outcome });
        else { m.count += c.count; if (c.at >= m.at) { m.at = c.at; m.lastSeenAt = new Date(c.at).toISOString(); m.lastOutcome = c.outcome; } }
      }
      return [...merged.values()].sort((a, b) => b.at - a.at).map(({ at: _at, ...s }) => s);
    },
    async recent(limit) {
      return entries.slice(-limit).reverse();
    },
  };
}
