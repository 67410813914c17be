/**
 * `sluice operations`, `sluice operation <id>`, `sluice resume <id>`, `sluice audit`:
 * talk to the routes of api/routes/records.ts.
 */
import { emit, printJson, table } from "../output.js";
import { clientOf, remoteOptions } from "./remote.js";
import type { DefineCommand } from "./types.js";
import type { AuditRecord, OperationRecord } from "../../records/types.js";
import type { paths } from "../api-types.js";

type ControlAuditPage = paths["/api/v1/control-audit"]["get"]["responses"][200]["content"]["application/json"];
type ControlQuery = NonNullable<paths["/api/v1/control-audit"]["get"]["parameters"]["query"]>;

const said = (v: unknown): string => (v === null || v === undefined ? "none" : typeof v === "string" ? v : JSON.stringify(v));

async function controlAudit(opts: Remote & { action?: string; revision?: string; from?: string; to?: string; limit?: string }): Promise<void> {
  const client = clientOf(opts);
  const query = defined({ action: opts.action, revision: opts.revision, from: opts.from, to: opts.to, limit: opts.limit }) as ControlQuery;
  const page = await client.call<ControlAuditPage>(client.api.GET("/api/v1/control-audit", { params: { query } }));
  emit(opts, page, () => [
    ...table(["AT", "ACTION", "BY", "TARGET", "CHANGES"], page.items.map((e) => [e.at, e.action, `${e.token_name} (${e.role})`, e.target ?? "-", e.changes.map((c) => `${c.path} ${said(c.from)} → ${said(c.to)}`).join("; ")])),
    `${page.items.length} of ${page.total}`,
  ]);
}

type Remote = { url: string; token?: string; json?: boolean };

/** The options given on the command line, as query parameters. */
function defined(params: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
}

export const operationsCommand: DefineCommand = (cmd) => {
  remoteOptions(cmd)
    .option("--phase <phase>", "before, operation, after (resumable when its real status is succeeded) or finished")
    .option("--status <status>", "real status: not_started, running, succeeded, failed, unknown")
    .option("--limit <n>", "at most this many")
    .option("--json", "print JSON")
    .action(async (opts: Remote & { phase?: string; status?: string; limit?: string }) => {
      const { items } = await clientOf(opts).call<{ items: OperationRecord[] }>(clientOf(opts).api.GET("/api/v1/operations", { params: { query: defined({ phase: opts.phase, real_status: opts.status, limit: opts.limit }) } }));
      emit(opts, items, () => table(["OPERATION", "KIND", "PHASE", "REAL STATUS", "OUTCOME", "REVISION"],
        items.map((o) => [o.operationId, o.identity.operation, o.phase, o.realStatus, o.outcome ?? "-", `${o.revision}${o.resumedRevision !== null ? `→${o.resumedRevision}` : ""}`])));
    });
};

export const operationCommand: DefineCommand = (cmd) => {
  remoteOptions(cmd)
    .option("--json", "print JSON (the default: a record has no table form)")
    .option("--skipped", "print only the hooks it skipped, and why (disabled, quarantined, not_matched), as a table")
    .action(async (id: string, opts: Remote & { skipped?: boolean }) => {
      const { operation } = await clientOf(opts).call<{ operation: OperationRecord }>(clientOf(opts).api.GET("/api/v1/operations/{id}", { params: { path: { id } } }));
      if (!opts.skipped || opts.json) return printJson(opts.skipped ? operation.skipped ?? [] : operation);
      const skipped = operation.skipped ?? [];
      emit(opts, skipped, () => skipped.length === 0 ? ["no hook was skipped"] : table(["POINT", "BINDING", "HOOK", "REASON"], skipped.map((s) => [s.point, s.bindingId, s.hookRef, s.reason])));
    });
};

export const resumeCommand: DefineCommand = (cmd) => {
  remoteOptions(cmd)
    .option("--json", "print JSON (the default)")
    .action(async (id: string, opts: Remote) => {
      printJson(await clientOf(opts).call<unknown>(clientOf(opts).api.POST("/api/v1/operations/{id}/resume", { params: { path: { id } } })));
    });
};

export const auditCommand: DefineCommand = (cmd) => {
  remoteOptions(cmd)
    .option("--control", "the control audit: upload, bind, publish, rollback, token.create, ... with the token's name and what changed")
    .option("--action <name>", "with --control: only this action")
    .option("--revision <n>", "with --control: only actions on this revision")
    .option("--operation <id>", "of one operation")
    .option("--binding <id>", "of one binding")
    .option("--from <time>", "from this time (ISO date or epoch ms)")
    .option("--to <time>", "before this time (ISO date or epoch ms)")
    .option("--limit <n>", "at most this many")
    .option("--json", "print JSON")
    .action(async (opts: Remote & { control?: boolean; action?: string; revision?: string; operation?: string; binding?: string; from?: string; to?: string; limit?: string }) => {
      if (opts.control) return controlAudit(opts);
      const { items } = await clientOf(opts).call<{ items: AuditRecord[] }>(clientOf(opts).api.GET("/api/v1/audit", { params: { query: defined({ operation_id: opts.operation, binding_id: opts.binding, from: opts.from, to: opts.to, limit: opts.limit }) } }));
      emit(opts, items, () => table(["AT", "OPERATION", "POINT", "BINDING", "HOOK", "OUTCOME", "ERROR", "MS"],
        items.map((a) => [new Date(a.at).toISOString(), a.operationId, a.point, a.bindingId, a.hookRef, a.outcome, a.errorCode ?? "-", a.durationMs.toFixed(1)])));
    });
};
