/**
 * Joins an agent's before and after events of one tool call into one operation. The key is
 * (gateway key, session, tool-use id) where the agent sends a tool-use id (Claude Code,
 * Codex); otherwise (Gemini CLI, Copilot CLI) (gateway key, session, tool, digest of the
 * input), matched first in, first out. A post seen before is recognised and not applied
 * twice, and a pre's tool-use id is claimed once; a pre whose post never comes expires. Bounded: at most `max` open pres and as
 * many remembered posts.
 */
import { claimText, DEFAULT_AGENT_DOOR_LIMITS, pairKeyText, postText, type Pairing } from "../records/agent-door-store.js";

export type { PairKey, Pairing, Taken } from "../records/agent-door-store.js";

export const DEFAULT_PAIR_TTL_MS = DEFAULT_AGENT_DOOR_LIMITS.ttlMs;
export const DEFAULT_PAIR_MAX = DEFAULT_AGENT_DOOR_LIMITS.max;

/** The pairing of one process. */
export function memoryPairing(options: { ttlMs?: number; max?: number; maxPerKey?: number } = {}): Pairing {
  const ttl = options.ttlMs ?? DEFAULT_PAIR_TTL_MS;
  const max = options.max ?? DEFAULT_PAIR_MAX;
  const maxPerKey = options.maxPerKey ?? DEFAULT_AGENT_DOOR_LIMITS.maxPerKey;
  // Insertion order is opening order: the first entry is the oldest.
  const pres = new Map<string, { key: string; keyId: string; at: number }>();
  const perKey = new Map<string, number>();
  const byKey = new Map<string, string[]>();
  const seenPosts = new Map<string, true>();
  const remember = (seen: string): void => {
    if (seenPosts.size >= max) seenPosts.delete(seenPosts.keys().next().value!);
    seenPosts.set(seen, true);
  };
  const drop = (operationId: string): void => {
    const p = pres.get(operationId);
    if (!p) return;
    pres.delete(operationId);
    const left = (perKey.get(p.keyId) ?? 1) - 1;
    if (left > 0) perKey.set(p.keyId, left); else perKey.delete(p.keyId);
    const q = byKey.get(p.key)?.filter((id) => id !== operationId) ?? [];
    if (q.length > 0) byKey.set(p.key, q); else byKey.delete(p.key);
  };
  return {
    async open(key, operationId, now) {
      if (pres.has(operationId)) return true;
      if ((perKey.get(key.keyId) ?? 0) >= maxPerKey) return false;
      const text = pairKeyText(key);
      pres.set(operationId, { key: text, keyId: key.keyId, at: now });
      perKey.set(key.keyId, (perKey.get(key.keyId) ?? 0) + 1);
      byKey.set(text, [...(byKey.get(text) ?? []), operationId]);
      return true;
    },
    async take(key, postDigest, now) {
      const text = pairKeyText(key);
      const seen = postText(text, postDigest);
      const queue = byKey.get(text);
      if (!queue || queue.length === 0) return seenPosts.has(seen) ? { kind: "repeated" } : { kind: "missing" };
      const operationId = queue[0]!;
      drop(operationId);
      remember(seen);
      void now;
      return { kind: "found", operationId };
    },
    async claim(key, now) {
      const claimed = claimText(key);
      if (seenPosts.has(claimed)) return false;
      remember(claimed);
      void now;
      return true;
    },
    async expire(now) {
      const out: string[] = [];
      for (const [id, p] of pres) {
        if (p.at > now - ttl && pres.size - out.length <= max) break;
        out.push(id);
      }
      for (const id of out) drop(id);
      return out;
    },
  };
}
