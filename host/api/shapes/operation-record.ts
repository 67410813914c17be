/**
 * An operation record and a hook's audit row, as the records store keeps them. Both are
 * open objects: three stores (memory, SQLite, PostgreSQL) write them, and records written
 * by an earlier host lack later fields, so the API shows a record as stored, with the
 * fields every client reads described here.
 */

const str = { type: "string" } as const;
const nullableStr = { type: ["string", "null"] } as const;
const pointBinding = { type: "object", additionalProperties: false, required: ["point", "bindingId"], properties: { point: str, bindingId: str } } as const;
// Nullable objects are written as type arrays, not anyOf: the serializer picks an anyOf branch by validating the value, and a closed branch refuses a record with one more field.

export const SKIPPED_HOOKS = {
  type: "array",
  description: "Bindings at the points this operation reached that did not run: `disabled` (it would have matched, but is disabled in the release the operation ran on), `quarantined` (it matched; its plugin is quarantined, so its step failed without running and its failure policy decided), `not_matched` (its match does not admit this call). Absent when none was skipped.",
  items: {
    type: "object", additionalProperties: false, required: ["point", "bindingId", "hookRef", "reason"],
    properties: { point: str, bindingId: str, hookRef: str, reason: { type: "string", enum: ["disabled", "quarantined", "not_matched"] } },
  },
} as const;

export const OPERATION_RECORD = {
  type: "object", additionalProperties: true,
  required: ["operationId", "identity", "point", "phase", "realStatus", "revision", "attempts", "outcome", "error", "completed", "createdAt", "updatedAt"],
  properties: {
    operationId: str,
    parentOperationId: nullableStr,
    idempotencyKey: str,
    identity: {
      type: "object", additionalProperties: true, required: ["operation", "beforePoint", "afterPoint", "ctx"],
      description: "Enough of the call to rebuild the hooks' context and bindings' match on resume; identifiers only, no payload.",
      properties: {
        operation: str, beforePoint: str, afterPoint: str,
        ctx: {
          type: "object", additionalProperties: true, required: ["spaceId"],
          properties: { spaceId: str, actorId: str, runId: { type: "string", description: "The call's run (a coding agent's session)." }, instanceId: str, parentOperationId: str, purpose: str },
        },
        target: { type: "object", additionalProperties: true },
        callId: str,
      },
    },
    point: { type: "string", description: "The point of the current phase." },
    phase: { type: "string", enum: ["before", "operation", "awaiting", "after", "finished"] },
    realStatus: { type: "string", enum: ["not_started", "running", "succeeded", "failed", "unknown"] },
    revision: { type: "integer", description: "The release the operation started on." },
    resumedRevision: { type: ["integer", "null"] },
    resumes: { type: "integer" },
    inProgress: { ...pointBinding, type: ["object", "null"], description: "The after hook running now, or the one an unfinished after stage stopped at." },
    owner: nullableStr,
    artifacts: { type: "array", items: { type: "object", additionalProperties: true } },
    completed: { type: "array", items: pointBinding, description: "Bindings whose hooks finished, in order, across stages." },
    skipped: SKIPPED_HOOKS,
    finalInputRef: { type: ["string", "null"], description: "Keyed digest of the final input; the content is kept only in the opt-in payload store." },
    realResultRef: nullableStr,
    effectiveOutputRef: nullableStr,
    usage: { type: ["object", "null"], additionalProperties: false, required: ["input_tokens", "output_tokens"], properties: { input_tokens: { type: "number" }, output_tokens: { type: "number" } }, description: "Model calls: the billed tokens." },
    providerRequestId: nullableStr,
    attempts: { type: "integer" },
    shortCircuitedBy: nullableStr,
    outcome: { type: ["string", "null"], description: "How it ended (succeeded, failed, rejected, blocked, cancelled, short_circuited); null while in progress." },
    error: { type: ["object", "null"], additionalProperties: false, required: ["code", "message"], properties: { code: str, message: str }, description: "Code and message only: details may carry content." },
    createdAt: { type: "number", description: "Epoch milliseconds." },
    updatedAt: { type: "number", description: "Epoch milliseconds." },
  },
} as const;

/** A guest's log in an audit row: counts by level; the lines only while the payload store keeps them. */
const AUDIT_LOGS = {
  type: ["object", "null"], additionalProperties: false, required: ["count", "dropped", "levels"],
  properties: {
    count: { type: "integer" },
    dropped: { type: "integer" },
    levels: { type: "object", additionalProperties: { type: "integer" } },
    ref: { type: "string", description: "Where the payload store keeps the lines (a keyed digest)." },
    lines: { type: "array", items: { type: "object", additionalProperties: false, required: ["level", "message"], properties: { level: str, message: str } } },
  },
} as const;

/** One hook execution: digests, never content. */
export const AUDIT_ROW = {
  type: "object", additionalProperties: true,
  required: ["operationId", "bindingId", "hookRef", "codeSha256", "point", "phase", "revision", "outcome", "inputDigest", "outputDigest", "patchDigest", "durationMs", "fuel", "errorCode", "logs", "at"],
  properties: {
    seq: { type: "integer" },
    operationId: str,
    bindingId: str,
    hookRef: { type: "string", description: "`id@version` of a guest plugin, or an in-process hook's name." },
    codeSha256: str,
    point: str,
    phase: str,
    revision: { type: "integer" },
    outcome: str,
    inputDigest: str,
    outputDigest: str,
    patchDigest: nullableStr,
    durationMs: { type: "number" },
    fuel: { type: ["number", "null"] },
    errorCode: nullableStr,
    logs: AUDIT_LOGS,
    at: { type: "number", description: "Epoch milliseconds." },
  },
} as const;

