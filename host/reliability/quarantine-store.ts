/**
 * Where quarantine decisions are kept, so every host sharing a database agrees on them.
 * Fault counting stays per host (quarantine.ts, pure and synchronous on the hot path); a
 * decision (a plugin quarantined) and a lift are written here, and every host refreshes
 * its view from here (plugin-quarantine.ts). Engines: memory (the default, one process),
 * SQLite, PostgreSQL. Contract suite: test/reliability/quarantine-store.contract.test.ts.
 */
import type { QuarantineEntry } from "./quarantine.js";

export interface QuarantineStore {
  /** Records a decision; an entry already there for `entry.ref` is kept (the first host to decide wins) and returned. */
  put(entry: QuarantineEntry): Promise<QuarantineEntry>;
  /** Entries in force at `now` (an entry whose `until` has passed is not returned), oldest first. */
  list(now: number): Promise<QuarantineEntry[]>;
  /** Removes the entry of `ref`; the removed entry, or undefined when there was none. */
  lift(ref: string): Promise<QuarantineEntry | undefined>;
  /** Removes entries whose `until` is at or before `now`; returns them. */
  expire(now: number): Promise<QuarantineEntry[]>;
  close(): Promise<void>;
}
