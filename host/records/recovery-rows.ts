/**
 * Start-up recovery opens every unfinished record, and listing every record it lists
 * (sqlite-store.ts, postgres-store.ts). One row that does not open (a changed byte, a
 * damaged or truncated value) must cost nothing else: it is set aside and reported by its
 * id, untouched, and every other record is recovered or listed. Left as it is, it is never
 * run again blindly: resume reads it first and is refused RECORD_UNREADABLE, and an
 * operator sees it there, in the start-up report and in the list's `unreadable` ids.
 *
 * One case still stops start-up (and fails a list): not one row opens and some are sealed under another key.
 * That is a host started with the wrong key (hosts sharing a database must share it), and
 * setting every record aside would hide a misconfiguration as data loss.
 */
import { isSluiceError, type SluiceError } from "../errors/sluice-error.js";
import type { OperationRecord } from "./types.js";

/** Told of each record recovery or a list could not open: its id and the RECORD_UNREADABLE error (no content). */
export type UnreadableRecord = (operationId: string, error: SluiceError) => void;

const otherKey = (e: SluiceError): boolean => (e.details as { hostKeyId?: unknown } | undefined)?.hostKeyId !== undefined;

/** The rows that open, in order; each that does not is reported to `unreadable`. */
export function openRecoverable<R extends { operation_id: string }>(rows: readonly R[], unseal: (row: R) => OperationRecord, unreadable: UnreadableRecord = () => {}): OperationRecord[] {
  const opened: OperationRecord[] = [];
  const failed: [string, SluiceError][] = [];
  for (const row of rows) {
    try {
      opened.push(unseal(row));
    } catch (err) {
      if (!isSluiceError(err, "RECORD_UNREADABLE")) throw err;
      failed.push([row.operation_id, err]);
    }
  }
  const wrongKey = failed.find(([, e]) => otherKey(e));
  if (opened.length === 0 && wrongKey) throw wrongKey[1];
  for (const [id, e] of failed) unreadable(id, e);
  return opened;
}
