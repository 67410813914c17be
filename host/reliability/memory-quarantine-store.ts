import type { QuarantineEntry } from "./quarantine.js";
import type { QuarantineStore } from "./quarantine-store.js";

/** Quarantine decisions kept in this process only (a host that shares nothing). */
export function createMemoryQuarantineStore(): QuarantineStore {
  const entries = new Map<string, QuarantineEntry>();
  const live = (e: QuarantineEntry, now: number) => e.until === null || e.until > now;
  return {
    put: async (entry) => {
      const kept = entries.get(entry.ref);
      if (kept) return structuredClone(kept);
      entries.set(entry.ref, structuredClone(entry));
      return structuredClone(entry);
    },
    list: async (now) => [...entries.values()].filter((e) => live(e, now)).sort((a, b) => a.since - b.since).map((e) => structuredClone(e)),
    lift: async (ref) => { const e = entries.get(ref); entries.delete(ref); return e && structuredClone(e); },
    expire: async (now) => {
      const gone = [...entries.values()].filter((e) => !live(e, now));
      for (const e of gone) entries.delete(e.ref);
      return gone;
    },
    close: async () => {},
  };
}
