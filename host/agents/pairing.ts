/**
 * Joins an agent's before and after events of one tool call into one operation. The key is
 * (gateway key, session, tool-use id) where the agent sends a tool-use id (Claude Code,
 * Codex); otherwise (Gemini CLI, Copilot CLI) (gateway key, session, tool, digest of the
 * input), matched first in, first out. A post seen before is recognised and not applied
 * twice; a pre whose post never comes expires. Bounded: at most `max` open pres and as
 * many remembered posts.
 */
export interface PairKey {
  keyId: string;
  sessionId: string;
  toolUseId: string | null;
  toolId: string;
  inputDigest: string;
}

export type Taken = { kind: "found"; operationId: string } | { kind: "repeated" } | { kind: "missing" };

export interface Pairing {
  /** A pre opened `operationId` under `key`. */
  open(key: PairKey, operationId: string, now: number): Promise<void>;
  /** The post under `key` (its own digest `postDigest`): the operation it ends, once. */
  take(key: PairKey, postDigest: string, now: number): Promise<Taken>;
  /** Pres opened at or before `now - ttlMs`, removed and returned: their operations end "unknown". */
  expire(now: number): Promise<string[]>;
}

export const DEFAULT_PAIR_TTL_MS = 30 * 60_000;
export const DEFAULT_PAIR_MAX = 10_000;

/** The key as one string: the tool-use id where there is one, else the tool and the input's digest. */
export function pairKeyText(k: PairKey): string {
  return k.toolUseId !== null ? `${k.keyId}\u0000${k.sessionId}\u0000u\u0000${k.toolUseId}` : `${k.keyId}\u0000${k.sessionId}\u0000d\u0000${k.toolId}\u0000${k.inputDigest}`;
}

/** The pairing of one process. */
export function memoryPairing(options: { ttlMs?: number; max?: number } = {}): Pairing {
  const ttl = options.ttlMs ?? DEFAULT_PAIR_TTL_MS;
  const max = options.max ?? DEFAULT_PAIR_MAX;
  // Insertion order is opening order: the first entry is the oldest.
  const pres = new Map<string, { key: string; at: number }>();
  const byKey = new Map<string, string[]>();
  const seenPosts = new Map<string, true>();
  const drop = (operationId: string): void => {
    const p = pres.get(operationId);
    if (!p) return;
    pres.delete(operationId);
    const q = byKey.get(p.key)?.filter((id) => id !== operationId) ?? [];
    if (q.length > 0) byKey.set(p.key, q); else byKey.delete(p.key);
  };
  return {
    async open(key, operationId, now) {
      const text = pairKeyText(key);
      pres.set(operationId, { key: text, at: now });
      byKey.set(text, [...(byKey.get(text) ?? []), operationId]);
    },
    async take(key, postDigest, now) {
      const text = pairKeyText(key);
      const seen = `${text}\u0000${postDigest}`;
      const queue = byKey.get(text);
      if (!queue || queue.length === 0) return seenPosts.has(seen) ? { kind: "repeated" } : { kind: "missing" };
      const operationId = queue[0]!;
      drop(operationId);
      if (seenPosts.size >= max) seenPosts.delete(seenPosts.keys().next().value!);
      seenPosts.set(seen, true);
      void now;
      return { kind: "found", operationId };
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
