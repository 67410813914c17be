/** `sluice bind <hook_ref>`: add a binding to the draft pipeline; `sluice unbind` / `sluice binding delete` remove one. */
import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import type { AnswerOf, ApiClient, BodyOf } from "../client.js";
import { CliError, emit } from "../output.js";
import { clientOf, remoteOptions } from "./remote.js";
import type { DefineCommand } from "./types.js";

const list = (v: string): string[] => v.split(",").map((s) => s.trim()).filter(Boolean);

interface BindOptions {
  point?: string; id?: string; hookRef?: string; enabled?: boolean; config?: string; configFile?: string; priority?: string; timeoutMs?: string; failurePolicy?: string;
  purposes?: string; toolIds?: string; modelIds?: string; instances?: string; spaces?: string;
  disabled?: boolean; mandatory?: boolean; extension?: string; instanceIds?: string; observeOnly?: boolean; json?: boolean; url: string; token?: string;
}

async function configOf(opts: BindOptions): Promise<unknown> {
  const text = opts.configFile ? await readFile(opts.configFile, "utf8") : opts.config;
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`--config is not JSON: ${(err as Error).message}`, `quote it for the shell, e.g. --config '{"max_limit": 100}'`);
  }
}

function integer(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw new CliError(`${name} must be an integer, got ${value}`);
  return Number(value);
}

/** The options `bind` and `binding set` share: a binding's fields. */
function bindingOptions(cmd: Command, required: boolean): Command {
  const point = required ? cmd.requiredOption("--point <point>", "hook point, e.g. tool.before") : cmd.option("--point <point>", "hook point, e.g. tool.before");
  return point
    .option("--config <json>", "binding config, checked against the plugin's config_schema")
    .option("--config-file <file>", "binding config from a JSON file")
    .option("--priority <n>", "lower runs first (default 100)")
    .option("--timeout-ms <n>", "per-call time limit (default 1000)")
    .option("--failure-policy <policy>", "fail-closed or fail-open (default: the manifest's)")
    .option("--purposes <list>", "match: comma-separated purposes")
    .option("--tool-ids <list>", "match: comma-separated tool ids")
    .option("--model-ids <list>", "match: comma-separated model ids")
    .option("--instances <list>", "match: main,child")
    .option("--instance-ids <list>", "match: comma-separated instance ids or patterns with * (e.g. researcher-*)")
    .option("--spaces <list>", "match: comma-separated space ids")
    .option("--mandatory", "a platform rule: cannot be disabled; runs first and again on the final payload")
    .option("--extension <id>", "extension id: bindings at a before point and its after/chunk points that share it are one pre/post pair")
    .option("--observe-only", "its failures never fail the operation")
    .option("--json", "print JSON");
}

/** The binding fields given on the command line (only those given). */
async function fieldsOf(opts: BindOptions): Promise<Record<string, unknown>> {
  const config = await configOf(opts);
  const match = Object.fromEntries(([["purposes", opts.purposes], ["tool_ids", opts.toolIds], ["model_ids", opts.modelIds], ["instances", opts.instances], ["instance_ids", opts.instanceIds], ["spaces", opts.spaces]] as const)
    .filter(([, v]) => v !== undefined).map(([k, v]) => [k, list(v!)]));
  const priority = integer("--priority", opts.priority);
  const timeout = integer("--timeout-ms", opts.timeoutMs);
  return {
    ...(opts.point !== undefined ? { point: opts.point } : {}),
    ...(Object.keys(match).length ? { match } : {}),
    ...(priority !== undefined ? { priority } : {}),
    ...(timeout !== undefined ? { timeout_ms: timeout } : {}),
    ...(opts.failurePolicy ? { failure_policy: opts.failurePolicy } : {}),
    ...(config !== undefined ? { config } : {}),
    ...(opts.disabled ? { enabled: false } : {}),
    ...(opts.enabled ? { enabled: true } : {}),
    ...(opts.mandatory ? { mandatory: true } : {}),
    ...(opts.extension ? { extension: opts.extension } : {}),
    ...(opts.observeOnly ? { observe_only: true } : {}),
  };
}

export const bindCommand: DefineCommand = (cmd) => {
  remoteOptions(bindingOptions(cmd, true))
    .option("--id <id>", "binding id (default <plugin-id>-<point>)")
    .option("--disabled", "create it disabled")
    .action(async (hookRef: string, opts: BindOptions) => {
      const body = { id: opts.id ?? `${hookRef.split("@")[0]}-${opts.point!.replace(/\./g, "-")}`, hook_ref: hookRef, ...(await fieldsOf(opts)) };
      const created = await clientOf(opts).call<AnswerOf<"/api/v1/bindings", "post", 201>>(clientOf(opts).api.POST("/api/v1/bindings", { body: body as BodyOf<"/api/v1/bindings", "post"> }));
      emit(opts, created, () => [`bound ${created.binding.id}: ${hookRef} at ${opts.point} (position ${created.binding.position}); run \`sluice publish --activate\` to release it`]);
    });
};

export const unbindCommand: DefineCommand = (cmd) => {
  remoteOptions(cmd)
    .option("--json", "print JSON")
    .action(async (binding: string, opts: { json?: boolean; url: string; token?: string }) => {
      await deleteBinding(clientOf(opts), binding);
      emit(opts, { deleted: binding }, () => [`removed ${binding} from the draft; run \`sluice publish --activate\` to release the change`]);
    });
};

export const bindingCommands: DefineCommand = (group) => {
  remoteOptions(bindingOptions(group.command("set <binding>"), false))
    .description("update a draft binding: the fields given change, the others keep their values (and it keeps its place); publish to release the change")
    .option("--hook-ref <ref>", "bind it to this plugin-id@version instead")
    .option("--enabled", "enable it")
    .option("--disabled", "disable it")
    .action(async (id: string, opts: BindOptions) => {
      if (opts.enabled && opts.disabled) throw new CliError("give --enabled or --disabled, not both");
      const client = clientOf(opts);
      const { binding: current } = await client.call<AnswerOf<"/api/v1/bindings/{id}">>(client.api.GET("/api/v1/bindings/{id}", { params: { path: { id } } }));
      const fields = await fieldsOf(opts);
      const { position: _p, registered_at: _r, updated_at: _u, ...spec } = current;
      const body = { ...spec, ...fields, ...(opts.hookRef ? { hook_ref: opts.hookRef } : {}), ...(fields.match ? { match: { ...(spec.match as object), ...(fields.match as object) } } : {}) };
      const updated = await client.call<AnswerOf<"/api/v1/bindings/{id}", "put">>(client.api.PUT("/api/v1/bindings/{id}", { params: { path: { id } }, body: body as BodyOf<"/api/v1/bindings/{id}", "put"> }));
      const changed = [...Object.keys(fields), ...(opts.hookRef ? ["hook_ref"] : [])];
      emit(opts, updated, () => [`updated ${updated.binding.id} (${changed.length ? changed.join(", ") : "nothing given"}): ${updated.binding.hook_ref} at ${updated.binding.point} (position ${updated.binding.position}); run \`sluice publish --activate\` to release it`]);
    });
  remoteOptions(group.command("delete <binding>"))
    .description("remove a binding from the draft pipeline (the same as `sluice unbind`)")
    .option("--json", "print JSON")
    .action(async (binding: string, opts: { json?: boolean; url: string; token?: string }) => {
      await deleteBinding(clientOf(opts), binding);
      emit(opts, { deleted: binding }, () => [`removed ${binding} from the draft; run \`sluice publish --activate\` to release the change`]);
    });
};

async function deleteBinding(client: ApiClient, id: string): Promise<void> {
  await client.call(client.api.DELETE("/api/v1/bindings/{id}", { params: { path: { id } } }));
}
