/**
 * Every event the door answered: which agent, which event, when, how it was answered, and
 * for a refused one why, with the body's keyed digest (never its content). It answers
 * `GET /api/v1/agents/status`.
 */
import type { Agent } from "./agents.js";

/** How the door answered: the verdict's kind, `neutral`, or `refused` (malformed, oversized, unauthenticated). */
export type EventOutcome = "continue" | "deny" | "ask" | "block" | "replace" | "neutral" | "refused";

export interface AgentEventEntry {
  at: number;
  agent: Agent;
  event: string;
  /** The key's space; null for an unauthenticated event. */
  spaceId: string | null;
  outcome: EventOutcome;
  /** The catalogue code of why it was refused, denied or failed; null otherwise. */
  code: string | null;
  /** Keyed digest of the body as received; null when it was not read (oversized). */
  bodyDigest: string | null;
  operationId: string | null;
}

export interface EventSummary { agent: Agent; event: string; count: number; lastSeenAt: string; lastOutcome: EventOutcome }

export interface AgentEventLog {
  add(entry: AgentEventEntry): Promise<void>;
  /** One line per (agent, event) seen, newest activity first; within a space when given. */
  summary(spaceId?: string): Promise<EventSummary[]>;
  /** The newest entries first. */
  recent(limit: number): Promise<AgentEventEntry[]>;
}

/** Bounded: the newest `max` entries, and counts of every (agent, event, space). */
export function memoryEventLog(max = 10_000): AgentEventLog {
  const entries: AgentEventEntry[] = [];
  const counts = new Map<string, { agent: Agent; event: string; spaceId: string | null; count: number; at: number; outcome: EventOutcome }>();
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
