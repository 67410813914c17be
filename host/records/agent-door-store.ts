/**
 * What the coding agents' door (host/agents/) keeps beside the operation records: the
 * pairing of each tool call's before and after events, and the log of the events it
 * answered. Identifiers, keyed digests and codes only, never an event's content. Bounded:
 * pres wait at most `ttlMs` (then expire), at most `max` at once and `maxPerKey` of one hooks key; posts are remembered
 * (to recognise a repeated one) for `ttlMs`; the event log keeps `max` entries and a
 * count per (agent, event, space). On a shared PostgreSQL every host pairs with every
 * other: a pre opened on one host is taken by the post reaching another, exactly once.
 * Contract suite: test/agents-door/door-store.contract.test.ts over every engine.
 */

import { createHash } from "node:crypto";

/** The pairing key: (key, session, tool-use id) where the agent sends one, else (key, session, tool, input digest). */
export interface PairKey {
  keyId: string;
  sessionId: string;
  toolUseId: string | null;
  toolId: string;
  /** Keyed digest of the tool input. */
  inputDigest: string;
}

export type Taken = { kind: "found"; operationId: string } | { kind: "repeated" } | { kind: "missing" };

export interface Pairing {
  /**
   * A pre opened `operationId` under `key`: false (nothing kept) when `maxPerKey` pres of the
   * same hooks key already wait, so one key cannot push another's out of the bounded store.
   */
  open(key: PairKey, operationId: string, now: number): Promise<boolean>;
  /** The post under `key` (its own digest `postDigest`): the oldest pre it ends, once; `repeated` for a post already applied. */
  take(key: PairKey, postDigest: string, now: number): Promise<Taken>;
  /**
   * A pre's tool-use id (`key` with one), claimed before its hooks run: false when a pre under
   * the same key claimed it within `ttlMs`, its post come or not. Atomic across every host of
   * the store: of two racing pres, one has it.
   */
  claim(key: PairKey, now: number): Promise<boolean>;
  /** Pres opened at or before `now - ttlMs` (or past `max`), removed and returned, oldest first: their operations end "unknown". */
  expire(now: number): Promise<string[]>;
}

/** How the door answered: the verdict's kind, `neutral`, or `refused` (malformed, oversized, unauthenticated). */
export type EventOutcome = "continue" | "deny" | "ask" | "block" | "replace" | "neutral" | "refused";

export interface AgentEventEntry {
  at: number;
  agent: string;
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

export interface EventSummary { agent: string; event: string; count: number; lastSeenAt: string; lastOutcome: EventOutcome }

export interface AgentEventLog {
  add(entry: AgentEventEntry): Promise<void>;
  /** One line per (agent, event) seen, most recent first; within a space when given. */
  summary(spaceId?: string): Promise<EventSummary[]>;
  /** The newest entries first. */
  recent(limit: number): Promise<AgentEventEntry[]>;
}

export interface AgentDoorStore {
  readonly pairing: Pairing;
  readonly events: AgentEventLog;
  close(): Promise<void>;
}

export interface AgentDoorLimits {
  /** How long a pre waits for its post, and a post is remembered. Default 30 minutes. */
  ttlMs: number;
  /** Pres waiting at once, and event log entries kept. Default 10,000. */
  max: number;
  /** Pres of one hooks key waiting at once. Default 1,000. */
  maxPerKey: number;
}

export const DEFAULT_AGENT_DOOR_LIMITS: AgentDoorLimits = { ttlMs: 30 * 60_000, max: 10_000, maxPerKey: 1_000 };

/**
 * The key as one stored string: a sha256 of the tool-use id where there is one, else of the
 * tool and the input's digest (a fixed width, and no session id or tool-use id kept as such).
 */
export function pairKeyText(k: PairKey): string {
  const parts = k.toolUseId !== null ? [k.keyId, k.sessionId, "u", k.toolUseId] : [k.keyId, k.sessionId, "d", k.toolId, k.inputDigest];
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
}

/** What a post is remembered by: its pair key and its own digest. */
export function postText(key: string, postDigest: string): string {
  return createHash("sha256").update(`${key}:${postDigest}`).digest("hex");
}

/** What a pre's claim of its tool-use id is remembered by, beside the posts (no post's digest is "pre"). */
export function claimText(key: PairKey): string {
  return postText(pairKeyText(key), "pre");
}

/** What a summary row becomes. */
export function summaryOf(r: { agent: string; event: string; count: number; at: number; outcome: string }): EventSummary {
  return { agent: r.agent, event: r.event, count: r.count, lastSeenAt: new Date(r.at).toISOString(), lastOutcome: r.outcome as EventOutcome };
}
