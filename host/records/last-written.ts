/**
 * What a records store last wrote of each operation it is running: the record and its
 * sealed text. A store updates such a record without reading or unsealing it, swapping the
 * row only while it still holds that text (a fresh nonce per write makes the text a
 * version); a row changed elsewhere (a claim, another host) fails the swap and is read.
 * Operations that finished are forgotten.
 */
import type { OperationRecord } from "./types.js";

export interface Written { record: OperationRecord; sealed: string }

/** In-flight operations of one host are few; past this the cache is dropped and refilled. */
const MAX_ENTRIES = 10_000;

export class LastWritten {
  private readonly entries = new Map<string, Written>();

  get(operationId: string): Written | undefined {
    return this.entries.get(operationId);
  }

  remember(record: OperationRecord, sealed: string): void {
    if (record.phase === "finished") { this.entries.delete(record.operationId); return; }
    if (this.entries.size >= MAX_ENTRIES && !this.entries.has(record.operationId)) this.entries.clear();
    this.entries.set(record.operationId, { record, sealed });
  }

  forget(operationId: string): void {
    this.entries.delete(operationId);
  }
}
