/**
 * Records engines for the phase-boundary tests (running-durable, streamed-records): one that
 * completes every write 20 ms after it was asked for and lists each completed write (the
 * phase and real status it left, "+result" when it stored the real result), so a test sees
 * what was on record when; one whose first insert fails.
 */
import { createMemoryRecords, type OperationStore } from "../../host/index.js";

export function slowRecords(): { inner: OperationStore; completed: string[]; store: OperationStore } {
  const inner = createMemoryRecords();
  const completed: string[] = [];
  const later = <T>(fn: () => Promise<T>) => new Promise<T>((resolve, reject) => setTimeout(() => fn().then(resolve, reject), 20));
  const store: OperationStore = {
    ...inner,
    insert: (record, audit, result) => later(() => inner.insert(record, audit, result)).then(() => { completed.push(`insert ${record.phase}/${record.realStatus}${result ? " +result" : ""}`); }),
    update: (id, changes, result, audit) => later(() => inner.update(id, changes, result, audit)).then(() => { completed.push(`update ${changes.phase ?? "-"}/${changes.realStatus ?? "-"}${result ? " +result" : ""}`); }),
  };
  return { inner, completed, store };
}

/** `store` answers as a memory engine; `flaky` is the same engine whose first insert fails ("disk busy"). */
export function firstInsertFails(): { store: OperationStore; flaky: OperationStore } {
  const store = createMemoryRecords();
  let failNext = true;
  const flaky: OperationStore = { ...store, insert: (record, audit, result) => { if (failNext) { failNext = false; return Promise.reject(new Error("disk busy")); } return store.insert(record, audit, result); } };
  return { store, flaky };
}
