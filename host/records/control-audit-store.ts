/**
 * The audit of control actions: who (the API token's name and role) changed what serves or
 * who may act, when, and what changed. Kept in the database of the registry and the records
 * (SQLite: sqlite-control-audit.ts; PostgreSQL: postgres-control-audit.ts). Contract suite:
 * test/records/control-audit.contract.test.ts.
 */

/** Every action recorded, by the name the API, the CLI and the console show. */
export const CONTROL_ACTIONS = [
  "upload", "bind", "unbind", "binding.set", "enable", "disable", "publish", "activate", "rollback", "deploy",
  "quarantine.lift", "key.create", "key.revoke", "token.create", "token.revoke",
] as const;

export type ControlAction = (typeof CONTROL_ACTIONS)[number];

/** One changed value: `path` names it ("guard-prompts: enabled", "active revision"). */
export interface ControlChangeItem {
  path: string;
  from: unknown;
  to: unknown;
}

export interface ControlAuditEntry {
  id: string;
  /** ISO time. */
  at: string;
  action: ControlAction;
  /** The acting token's id and name ("admin" for the server's own token) and role. */
  tokenId: string;
  tokenName: string;
  role: string;
  /** What was acted on: a binding id, a plugin ref, a revision, a key or token id. */
  target: string | null;
  /** The revision the action published or activated, when it did. */
  revision: number | null;
  changes: ControlChangeItem[];
}

export interface ControlAuditFilter {
  action?: ControlAction;
  revision?: number;
  tokenName?: string;
  /** [from, to) in epoch milliseconds. */
  from?: number;
  to?: number;
  limit?: number;
  offset?: number;
}

export interface ControlAuditStore {
  append(entry: ControlAuditEntry): Promise<void>;
  /** Newest first, with the exact number of entries the filter matches. */
  list(filter?: ControlAuditFilter): Promise<{ items: ControlAuditEntry[]; total: number }>;
  close(): Promise<void>;
}

let sequence = 0;
/** An id that sorts in creation order within this process: the time, a counter, a random tail. */
export function controlEntryId(atMs: number): string {
  sequence = (sequence + 1) % 1_679_616;
  return `ca_${atMs.toString(36).padStart(9, "0")}${sequence.toString(36).padStart(4, "0")}${Math.random().toString(36).slice(2, 8)}`;
}
