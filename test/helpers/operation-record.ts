import type { OperationRecord, StoredResult } from "../../host/records/types.js";

/** A fresh tool operation's record as the journal first writes it; `over` changes any field. */
export const operationRecord = (id: string, over: Partial<OperationRecord> = {}): OperationRecord => ({
  operationId: id, parentOperationId: null, idempotencyKey: id,
  identity: { operation: "tool", beforePoint: "tool.before", afterPoint: "tool.after", ctx: { spaceId: "s" }, target: { instance: "main", spaceId: "s", toolId: "t" }, callId: "c" },
  point: "tool.before", phase: "before", realStatus: "not_started", revision: 1, resumedRevision: null, resumes: 0, completed: [],
  finalInputRef: null, realResultRef: null, effectiveOutputRef: null, usage: null, providerRequestId: null, attempts: 0, shortCircuitedBy: null,
  outcome: null, error: null, createdAt: 1_000, updatedAt: 1_000, ...over,
});

/** A small stored real result with the after payload it led to. */
export const STORED_RESULT: StoredResult = { real: { n: 1 }, afterPayload: { view: 1 }, before: { ran: false, reached: -1, carries: {} } };
