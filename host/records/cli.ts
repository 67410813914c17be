/**
 * `sluice operations`, `sluice operation <id>`, `sluice resume <id>`, `sluice audit`:
 * talk to the routes of ./http.ts. Add `recordCommands` to host/cli/commands/index.ts.
 */
import { print, printJson } from "../cli/output.js";
import { clientOf, remoteOptions } from "../cli/commands/remote.js";
import type { RegisterCommand } from "../cli/commands/types.js";
import type { AuditRecord, OperationRecord } from "./types.js";

type Remote = { url: string; token?: string; json?: boolean };

function query(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
  return q.size ? `?${q}` : "";
}

export const recordCommands: RegisterCommand = (program) => {
  remoteOptions(program.command("operations"))
    .description("list operation records, newest first")
    .option("--phase <phase>", "before, operation, after (resumable when its real status is succeeded) or finished")
    .option("--status <status>", "real status: not_started, running, succeeded, failed, unknown")
    .option("--limit <n>", "at most this many")
    .option("--json", "print JSON")
    .action(async (opts: Remote & { phase?: string; status?: string; limit?: string }) => {
      const { items } = await clientOf(opts).request<{ items: OperationRecord[] }>("GET", `/api/v1/operations${query({ phase: opts.phase, real_status: opts.status, limit: opts.limit })}`);
      if (opts.json) return printJson(items);
      for (const o of items) print(`${o.operationId}  ${o.identity.operation}  ${o.phase}  ${o.realStatus}  ${o.outcome ?? "-"}  rev ${o.revision}${o.resumedRevision !== null ? `→${o.resumedRevision}` : ""}`);
    });

  remoteOptions(program.command("operation <id>"))
    .description("show one operation record")
    .action(async (id: string, opts: Remote) => {
      printJson((await clientOf(opts).request<{ operation: OperationRecord }>("GET", `/api/v1/operations/${encodeURIComponent(id)}`)).operation);
    });

  remoteOptions(program.command("resume <id>"))
    .description("finish an operation's after processing on its stored real result (the current release; the tool or model is not called again)")
    .action(async (id: string, opts: Remote) => {
      printJson(await clientOf(opts).request<unknown>("POST", `/api/v1/operations/${encodeURIComponent(id)}/resume`, {}));
    });

  remoteOptions(program.command("audit"))
    .description("hook audit records (digests, no content), oldest first")
    .option("--operation <id>", "of one operation")
    .option("--binding <id>", "of one binding")
    .option("--from <time>", "from this time (ISO date or epoch ms)")
    .option("--to <time>", "before this time (ISO date or epoch ms)")
    .option("--limit <n>", "at most this many")
    .option("--json", "print JSON")
    .action(async (opts: Remote & { operation?: string; binding?: string; from?: string; to?: string; limit?: string }) => {
      const { items } = await clientOf(opts).request<{ items: AuditRecord[] }>("GET", `/api/v1/audit${query({ operation_id: opts.operation, binding_id: opts.binding, from: opts.from, to: opts.to, limit: opts.limit })}`);
      if (opts.json) return printJson(items);
      for (const a of items) print(`${new Date(a.at).toISOString()}  ${a.operationId}  ${a.point}  ${a.bindingId}  ${a.hookRef}  ${a.outcome}${a.errorCode ? ` ${a.errorCode}` : ""}  ${a.durationMs.toFixed(1)} ms`);
    });
};
