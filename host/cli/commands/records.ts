/**
 * `sluice operations`, `sluice operation <id>`, `sluice resume <id>`, `sluice audit`:
 * talk to the routes of api/routes/records.ts.
 */
import { emit, printJson, table } from "../output.js";
import { clientOf, remoteOptions } from "./remote.js";
import type { DefineCommand } from "./types.js";
import type { OperationRecord } from "../../records/types.js";
import type { AnswerOf, paths } from "../client.js";
import { logLines } from "../shown-logs.js";

type ControlAuditPage = AnswerOf<"/api/v1/control-audit">;
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

/** An audit row as the API shows it: the guest's log as counts, with its lines while the payload store keeps them. */
type ShownAudit = AnswerOf<"/api/v1/audit">["items"][number];

/** "3 lines (2 info, 1 warn)". */
function logCount(logs: NonNullable<ShownAudit["logs"]>): string {
  const levels = Object.entries(logs.levels).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`);
  return `${logs.count} line${logs.count === 1 ? "" : "s"}${levels.length ? ` (${levels.join(", ")})` : ""}`;
}

/** Each hook of the operation, with what its guest logged: the lines when the server's payload store keeps them, else how many. */
function hookLines(hooks: readonly ShownAudit[]): string[] {
  return hooks.flatMap((a) => [
    `hook ${a.bindingId} (${a.hookRef}) at ${a.point}: ${a.outcome}${a.errorCode ? ` (${a.errorCode})` : ""} in ${a.durationMs.toFixed(2)} ms${a.fuel !== null ? `, fuel ${a.fuel.toLocaleString("en-US")}` : ""}`,
    ...(a.logs?.lines ? logLines({ lines: a.logs.lines, dropped: a.logs.dropped })
      : a.logs ? [`    log: ${logCount(a.logs)}${a.logs.dropped ? `, ${a.logs.dropped} dropped` : ""}; the lines are kept only with the server's payload store on`] : []),
  ]);
}

export const operationCommand: DefineCommand = (cmd) => {
  remoteOptions(cmd)
    .option("--json", "print the server's JSON: { operation, hooks }")
    .option("--skipped", "print only the hooks it skipped, and why (disabled, quarantined, not_matched), as a table (with --json, the list)")
    .action(async (id: string, opts: Remote & { skipped?: boolean }) => {
      const client = clientOf(opts);
      const shown = await client.call<{ operation: OperationRecord; hooks: ShownAudit[] }>(client.api.GET("/api/v1/operations/{id}", { params: { path: { id } } }));
      if (opts.skipped) {
        const skipped = shown.operation.skipped ?? [];
        return emit(opts, skipped, () => (skipped.length === 0 ? ["no hook was skipped"] : table(["POINT", "BINDING", "HOOK", "REASON"], skipped.map((x) => [x.point, x.bindingId, x.hookRef, x.reason]))));
      }
      // The record has no table form: its JSON, then each hook with its guest's log.
      emit(opts, shown, () => [JSON.stringify(shown.operation, null, 2), ...(shown.hooks.length ? ["hooks:", ...hookLines(shown.hooks)] : ["hooks: none ran"])]);
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
      const { items } = await clientOf(opts).call<AnswerOf<"/api/v1/audit">>(clientOf(opts).api.GET("/api/v1/audit", { params: { query: defined({ operation_id: opts.operation, binding_id: opts.binding, from: opts.from, to: opts.to, limit: opts.limit }) } }));
      emit(opts, items, () => table(["AT", "OPERATION", "POINT", "BINDING", "HOOK", "OUTCOME", "ERROR", "MS", "LOG"],
        items.map((a) => [new Date(a.at).toISOString(), a.operationId, a.point, a.bindingId, a.hookRef, a.outcome, a.errorCode ?? "-", a.durationMs.toFixed(1), a.logs ? String(a.logs.count) : "-"])));
    });
};
