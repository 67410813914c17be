/**
 * Finding operations on the server: by outcome (succeeded, rejected, asked for approval,
 * failed in a hook, failed in the real call), error code, binding, plugin, space, agent session (the call
 * context's runId) and time range, with the exact count and a page of the matches. Records
 * are sealed at rest, so the fields filtered on are read from the opened records: one scan
 * of the store's records (up to SEARCH_MAX_RECORDS, newest first; past it `complete` is
 * false) and, for binding and plugin, of the audit rows of the same range.
 */
import type { AuditRecord, OperationQuery, OperationRecord } from "../records/types.js";
import type { OperationStore } from "../records/store.js";

export const SEARCH_MAX_RECORDS = 100_000;

export const OUTCOMES = ["succeeded", "rejected", "asked", "hook_failed", "call_failed"] as const;
export type SearchOutcome = (typeof OUTCOMES)[number];

export interface OperationSearch {
  outcome?: SearchOutcome;
  errorCode?: string;
  binding?: string;
  plugin?: string;
  space?: string;
  runId?: string;
  from?: number;
  to?: number;
  offset: number;
  limit: number;
}

/** Which of the five ways an operation ended. */
export function outcomeOf(o: Pick<OperationRecord, "error" | "realStatus">): SearchOutcome {
  if (!o.error) return "succeeded";
  if (o.realStatus === "failed") return "call_failed";
  if (o.error.code === "HOOK_REJECTED") return "rejected";
  if (o.error.code === "HOOK_ASKED") return "asked";
  return "hook_failed";
}

export async function searchOperations(store: OperationStore, base: OperationQuery, s: OperationSearch, unreadable: (operationId: string) => void): Promise<{ items: OperationRecord[]; total: number; complete: boolean }> {
  const all = await store.list({ ...base, limit: SEARCH_MAX_RECORDS + 1 }, unreadable);
  const complete = all.length <= SEARCH_MAX_RECORDS;
  let ran: Map<string, AuditRecord[]> | undefined;
  if (s.binding !== undefined || s.plugin !== undefined || s.errorCode !== undefined) {
    ran = new Map();
    const rows = await store.audit({ ...(s.from !== undefined ? { from: s.from } : {}), ...(s.to !== undefined ? { to: s.to } : {}), limit: SEARCH_MAX_RECORDS * 20 });
    for (const r of rows) ran.set(r.operationId, [...(ran.get(r.operationId) ?? []), r]);
  }
  const hits = all.slice(0, SEARCH_MAX_RECORDS).filter((o) =>
    (s.outcome === undefined || outcomeOf(o) === s.outcome)
    && (s.errorCode === undefined || o.error?.code === s.errorCode || (ran?.get(o.operationId) ?? []).some((a) => a.errorCode === s.errorCode))
    && (s.space === undefined || o.identity.ctx.spaceId === s.space)
    && (s.runId === undefined || o.identity.ctx.runId === s.runId)
    && (s.from === undefined || o.createdAt >= s.from)
    && (s.to === undefined || o.createdAt < s.to)
    && (s.binding === undefined || (ran!.get(o.operationId) ?? []).some((a) => a.bindingId === s.binding))
    && (s.plugin === undefined || (ran!.get(o.operationId) ?? []).some((a) => a.hookRef === s.plugin || a.hookRef.startsWith(`${s.plugin}@`))));
  return { items: hits.slice(s.offset, s.offset + s.limit), total: hits.length, complete };
}
