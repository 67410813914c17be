/**
 * Audit rows as the API shows them: a guest's log is counts by level in the row; its
 * lines are read back from the payload store, where the journal kept them under the row's
 * `logs.ref` (records/journal.ts), while that store keeps them. Without a payload store
 * there are no lines to show, by design (docs/guest-logs.md).
 */
import { levelName, type GuestLogs } from "../pipeline/guest-logs.js";
import type { PayloadStore } from "../records/store.js";
import type { AuditRecord } from "../records/types.js";

export type ShownLine = { level: string; message: string };

export async function auditView(rows: readonly AuditRecord[], payloads: PayloadStore | undefined): Promise<(AuditRecord & { logs: unknown })[]> {
  return Promise.all(rows.map(async (row) => {
    const logs = row.logs ?? null;
    if (!logs?.ref || !payloads) return { ...row, logs };
    // A value sealed under another key (or gone past its retention) shows the counts alone.
    const kept = await payloads.get(logs.ref).catch(() => undefined) as GuestLogs | undefined;
    return { ...row, logs: kept ? { ...logs, lines: kept.lines.map((l): ShownLine => ({ level: levelName(l.level), message: l.message })) } : logs };
  }));
}
