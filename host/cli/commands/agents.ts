/**
 * `sluice agents setup` and `sluice agents status`: install Sluice's hooks into a coding
 * agent's settings (Claude Code, Codex, Gemini CLI, Copilot CLI), and see which of their
 * events reach the server. See docs/agents-setup.md.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";
import { Option } from "commander";
import { AGENT_IDS, isAgentId, type AgentId } from "../agents/events.js";
import { foreignUrls } from "../agents/foreign-urls.js";
import { packageRoot, sluiceHookPath } from "../agents/hook-command.js";
import { applySetup, managedFragment, planSetup, readIfExists, type SetupOptions } from "../agents/setup.js";
import { EXIT } from "../exit-codes.js";
import { CliError, emit, print, table, warn } from "../output.js";
import { clientOf, DEFAULT_URL, remoteOptions } from "./remote.js";
import type { DefineCommand } from "./types.js";

interface SetupFlags { url: string; keyEnv: string; user?: boolean; codexHome?: string; print?: boolean; transport: string; json?: boolean }

export interface AgentEventStatus { agent: string; event: string; count: number; lastSeenAt: string | null; lastOutcome: string | null }

function agentOf(name: string): AgentId {
  if (!isAgentId(name)) throw new CliError(`unknown agent ${JSON.stringify(name)}`, `use one of: ${AGENT_IDS.join(", ")}`);
  return name;
}

function serverUrl(url: string): string {
  let parsed: URL;
  try { parsed = new URL(url); } catch { throw new CliError(`--url ${JSON.stringify(url)} is not a URL`, "pass the server's URL, e.g. http://127.0.0.1:8787"); }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new CliError(`--url ${JSON.stringify(url)} must be http or https`);
  return url.replace(/\/+$/, "");
}

/** Resolves the flags once into complete options, refusing impossible combinations. */
export function setupOptions(agentName: string, flags: SetupFlags, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): SetupOptions {
  const agent = agentOf(agentName);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(flags.keyEnv)) throw new CliError(`--key-env ${JSON.stringify(flags.keyEnv)} is not an environment variable name`, "name the variable that holds the hooks key, e.g. SLUICE_HOOK_KEY (the key itself is never written into the settings)");
  if (flags.transport !== "command" && flags.transport !== "http") throw new CliError(`--transport ${JSON.stringify(flags.transport)} is not command or http`);
  if (flags.transport === "http" && agent !== "claude-code") throw new CliError(`--transport http is for claude-code only`, `${agent} gets command hooks (sluice-hook)`);
  if (flags.codexHome && agent !== "codex") throw new CliError(`--codex-home is for codex only`);
  if (flags.codexHome && flags.user) throw new CliError("--codex-home and --user both say where Codex's files go", "pass one of them");
  const hook = sluiceHookPath(packageRoot());
  const codexHome = flags.codexHome ? resolve(cwd, flags.codexHome) : flags.user && env.CODEX_HOME ? resolve(cwd, env.CODEX_HOME) : undefined;
  return {
    agent,
    scope: flags.user || flags.codexHome ? "user" : "project",
    projectDir: cwd,
    home: env.HOME ?? homedir(),
    ...(codexHome ? { codexHome } : {}),
    transport: flags.transport,
    target: { url: serverUrl(flags.url), keyEnv: flags.keyEnv, node: process.execPath, hook },
  };
}

export const agentCommands: DefineCommand = (group) => {
  group.command("setup <agent>")
    .description(`install Sluice's hooks for every event of <agent> (${AGENT_IDS.join(", ")}), merged into its settings; idempotent`)
    .addOption(new Option("--url <url>", "the server's URL (sluice serve)").env("SLUICE_URL").default(DEFAULT_URL))
    .option("--key-env <VAR>", "the environment variable the hooks read the hooks key from at run time (sluice keys create --scope hooks)", "SLUICE_HOOK_KEY")
    .option("--user", "write the user-level settings instead of the current project's")
    .option("--codex-home <dir>", "codex: write hooks.json and config.toml in this Codex home")
    .option("--print", "print the fragment an organisation distributes as managed settings, and write nothing")
    .addOption(new Option("--transport <kind>", "claude-code: command hooks (sluice-hook; block when the server is unreachable) or http hooks (the tool runs when the server is unreachable)").choices(["command", "http"]).default("command"))
    .option("--json", "print JSON")
    .action((agentName: string, flags: SetupFlags) => {
      const o = setupOptions(agentName, flags);
      if (o.transport === "command" && !existsSync(o.target.hook)) {
        throw new CliError(`sluice-hook is missing at ${o.target.hook}`, "build or reinstall the sluice package: a hook command that cannot start would not block anything", EXIT.internal);
      }
      if (flags.print) {
        const fragment = managedFragment(o);
        if (flags.json) { emit(flags, fragment, () => []); return; }
        process.stdout.write(fragment.content);
        process.stderr.write(`# install at: ${fragment.installAt}\n${fragment.notes.map((n) => `# ${n}\n`).join("")}`);
        return;
      }
      let plan;
      try { plan = planSetup(o); } catch (err) { throw new CliError((err as Error).message); }
      const written = applySetup(plan);
      emit(flags, { agent: o.agent, files: plan.files.map((f) => ({ path: f.path, changed: f.changed })), notes: plan.notes }, () => [
        ...plan.files.map((f) => `${f.changed ? "wrote" : "unchanged"} ${f.path}`),
        `${o.agent}: hooks call ${o.target.url} with the key from $${o.target.keyEnv}${written.length === 0 ? " (already set up)" : ""}`,
        ...plan.notes.map((n) => `note: ${n}`),
      ]);
    });
  remoteOptions(group.command("status"))
    .description("which agent events reached the server and when; warns about hook and model URLs in the agents' settings that point elsewhere")
    .option("--agent <agent>", "only this agent")
    .option("--json", "print JSON")
    .action(async (opts: { agent?: string; json?: boolean; url: string; token?: string; tokenFile?: string }) => {
      const only = opts.agent ? agentOf(opts.agent) : undefined;
      const client = clientOf(opts);
      const { events } = await client.call<{ events: AgentEventStatus[] }>(client.api.GET("/api/v1/agents/status"));
      const shown = events.filter((e) => !only || e.agent === only);
      const where = { projectDir: process.cwd(), home: process.env.HOME ?? homedir(), ...(process.env.CODEX_HOME ? { codexHome: process.env.CODEX_HOME } : {}) };
      const foreign = (only ? [only] : AGENT_IDS).flatMap((a) => foreignUrls(a, opts.url, where, readIfExists));
      emit(opts, { events: shown, foreign_urls: foreign }, () => shown.length === 0
        ? ["no agent event has reached this server yet (run `sluice agents setup <agent>`, then use the agent)"]
        : table(["agent", "event", "count", "last seen", "last outcome"], shown.map((e) => [e.agent, e.event, String(e.count), e.lastSeenAt ?? "", e.lastOutcome ?? ""])));
      if (!opts.json) for (const f of foreign) warn(`${f.agent}: ${f.file} ${f.setting} points at ${f.url}, not at ${opts.url}: a hook or model URL there receives the agent's payloads and keys`);
      if (foreign.length > 0 && !opts.json) print(`${foreign.length} setting(s) point somewhere other than the server (see the warnings above)`);
    });
};
