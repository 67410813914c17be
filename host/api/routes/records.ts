/**
 * The records' management routes, to mount on the API server (host/api/server.ts):
 * `recordRoutes(app, host)`. Errors are thrown as SluiceError, which the API's error
 * handler turns into `{ error: { code, message, details } }`.
 */
import type { FastifyInstance } from "fastify";
import { SluiceError } from "../../errors/sluice-error.js";
import type { Host } from "../../host.js";
import type { OperationPhase } from "../../records/types.js";
import type { RealStatus } from "../../records/facts.js";
import { noteServerError } from "../../http/server-errors-log.js";
import { DEPLOYER, VIEWER } from "../roles.js";
import { OUTCOMES, searchOperations, type SearchOutcome } from "../operation-search.js";
import { timeRange } from "../query-time.js";
import { recordsOf } from "../records-of.js";
import { auditView } from "../audit-view.js";
import { ref } from "../shapes/ref.js";

const str = { type: "string" } as const;
/** A records list: the records that open, and by id the ones that do not (never their content). */
const operationList = {
  type: "object", additionalProperties: false, required: ["items", "unreadable"],
  properties: {
    items: { type: "array", items: ref("OperationRecord") },
    total: { type: "integer", description: "With any search filter or offset: the exact number of matching operations (the page is `items`)." },
    complete: { type: "boolean", description: "False when the store holds more records than one search reads (the newest are searched)." },
    unreadable: {
      type: "array",
      items: { type: "object", additionalProperties: false, required: ["operation_id", "code"], properties: { operation_id: str, code: { type: "string", enum: ["RECORD_UNREADABLE"] } } },
    },
  },
} as const;

/** One record as stored, with its hooks' audit rows oldest first. */
const operationDetail = {
  type: "object", additionalProperties: false, required: ["operation", "hooks"],
  properties: { operation: ref("OperationRecord"), hooks: { type: "array", items: ref("AuditRow") } },
} as const;

/** A resume that ran: the output the caller gets now, and the engine's own facts and hook traces, open (the CLI prints them whole). A resume that did not run answers the error with its facts and hooks. */
const resumed = {
  type: "object", additionalProperties: false, required: ["ok", "output", "facts", "hooks", "annotations"],
  properties: {
    ok: { type: "boolean", enum: [true] },
    output: { description: "The effective output of the after stage, run again on the stored real result." },
    facts: { type: "object", additionalProperties: true, description: "What really happened: operation id, revision, whether the real call ran, its status." },
    hooks: { type: "array", items: { type: "object", additionalProperties: true }, description: "Each hook the resume ran, with its outcome and timing." },
    annotations: { type: "object", additionalProperties: true },
  },
} as const;

const auditList = { type: "object", additionalProperties: false, required: ["items"], properties: { items: { type: "array", items: ref("AuditRow") } } } as const;


function limitOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 10_000) throw new SluiceError("REQUEST_INVALID", `limit must be an integer from 1 to 10000, got "${value}"`);
  return n;
}


interface OperationsQuery {
  phase?: OperationPhase; real_status?: RealStatus; limit?: string; outcome?: SearchOutcome; error_code?: string; binding?: string; plugin?: string;
  space?: string; run_id?: string; from?: string; to?: string; offset?: string;
}

export function recordRoutes(app: FastifyInstance, host: Host): void {
  app.get<{ Querystring: OperationsQuery }>("/api/v1/operations", {
    config: VIEWER,
    schema: {
      tags: ["operations"],
      summary: "Operation records, newest first; filter by phase and real status, and search by outcome (succeeded, rejected, asked, hook_failed, call_failed), error_code (the operation's or any of its hooks'), binding, plugin (id or id@version), space, run_id (the call context's runId: a coding agent's session) and time range [from, to), paged by offset and limit with the exact total. A record that does not open (changed or damaged at rest) is listed under `unreadable` by its id and code, never its content.",
      querystring: {
        type: "object", additionalProperties: false,
        properties: {
          phase: { type: "string", enum: ["before", "operation", "after", "finished"] }, real_status: { type: "string", enum: ["not_started", "running", "succeeded", "failed", "unknown"] }, limit: str,
          outcome: { type: "string", enum: OUTCOMES }, error_code: str, binding: str, plugin: str, space: str, run_id: str, from: str, to: str, offset: { type: "string", pattern: "^[0-9]{1,9}$" },
        },
      },
      response: { 200: operationList },
    },
  }, async (request) => {
    const q = request.query;
    const limit = limitOf(q.limit);
    const unreadable: { operation_id: string; code: "RECORD_UNREADABLE" }[] = [];
    const onUnreadable = (operationId: string) => unreadable.push({ operation_id: operationId, code: "RECORD_UNREADABLE" });
    const base = { ...(q.phase ? { phase: q.phase } : {}), ...(q.real_status ? { realStatus: q.real_status } : {}) };
    const searching = [q.outcome, q.error_code, q.binding, q.plugin, q.space, q.run_id, q.from, q.to, q.offset].some((v) => v !== undefined);
    if (!searching) return { items: await recordsOf(host).list({ ...base, ...(limit ? { limit } : {}) }, onUnreadable), unreadable };
    const range = timeRange(q);
    const found = await searchOperations(recordsOf(host), base, {
      ...(q.outcome ? { outcome: q.outcome } : {}), ...(q.error_code ? { errorCode: q.error_code } : {}), ...(q.binding ? { binding: q.binding } : {}),
      ...(q.plugin ? { plugin: q.plugin } : {}), ...(q.space ? { space: q.space } : {}), ...(q.run_id ? { runId: q.run_id } : {}),
      ...range, offset: q.offset ? Number(q.offset) : 0, limit: limit ?? 50,
    }, onUnreadable);
    return { ...found, unreadable };
  });

  app.get<{ Params: { id: string } }>("/api/v1/operations/:id", {
    config: VIEWER,
    schema: {
      tags: ["operations"],
      summary: "One operation record, with the hooks it skipped and why (`operation.skipped`), and its hooks' audit rows oldest first (`hooks`, as GET /api/v1/audit shows them: digests, and each guest's log as counts by level, with its lines while the payload store keeps them).",
      response: { 200: operationDetail },
    },
  }, async (request) => {
    const store = recordsOf(host);
    const operation = await store.get(request.params.id);
    if (!operation) throw new SluiceError("OPERATION_NOT_FOUND", `no operation record ${request.params.id}`, { operationId: request.params.id });
    return { operation, hooks: await auditView(await store.audit({ operationId: request.params.id, limit: 10_000 }), host.payloads) };
  });

  app.post<{ Params: { id: string } }>("/api/v1/operations/:id/resume", {
    config: DEPLOYER,
    schema: { tags: ["operations"], summary: "Run the unfinished after processing of an operation on its stored real result, with the current release. Never calls the tool or model again.", response: { 200: resumed } },
  }, async (request, reply) => {
    recordsOf(host);
    const r = await host.resume(request.params.id, { signal: AbortSignal.timeout(60_000) });
    if (r.ok) return { ok: true, output: r.output, facts: r.facts, hooks: r.hooks, annotations: r.annotations };
    if (r.error.status >= 500) noteServerError(request, r.error);
    return reply.status(r.error.status).send({ error: r.error.toData(), facts: r.facts, hooks: r.hooks });
  });

  app.get<{ Querystring: { operation_id?: string; binding_id?: string; from?: string; to?: string; limit?: string } }>("/api/v1/audit", {
    config: VIEWER,
    schema: { tags: ["operations"], summary: "Hook audit records (digests, no content), oldest first; by operation, binding and time range [from, to). A guest's log is counts by level (`logs`); its lines only while the opt-in payload store keeps them (`logs.lines`).", querystring: { type: "object", additionalProperties: false, properties: { operation_id: str, binding_id: str, from: str, to: str, limit: str } }, response: { 200: auditList } },
  }, async (request) => {
    const q = request.query;
    const range = timeRange(q);
    const limit = limitOf(q.limit);
    return {
      items: await auditView(await recordsOf(host).audit({
        ...(q.operation_id ? { operationId: q.operation_id } : {}), ...(q.binding_id ? { bindingId: q.binding_id } : {}),
        ...range, ...(limit ? { limit } : {}),
      }), host.payloads),
    };
  });
}
