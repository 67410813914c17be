/**
 * What `sluice agents setup` writes for each agent: which files, merged how, and the
 * fragment an organisation distributes as managed settings (`--print`). Planning is pure
 * (it reads through `read` and returns the new file contents), so it is tested without
 * touching a real home folder; `applySetup` writes the plan.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { AGENT_EVENTS, type AgentId } from "./events.js";
import { doorUrl, hookCommand, type HookTarget } from "./hook-command.js";
import { isObject, mergeFlatHooks, mergeGroupedHooks, type Json } from "./merge.js";

/** Each hook's own time limit, well above the door's answer time and a cold node start. */
export const HOOK_TIMEOUT_SECONDS = 30;

export interface SetupOptions {
  agent: AgentId;
  /** `project`: the current project's files; `user`: the user's own (or `--codex-home`). */
  scope: "project" | "user";
  projectDir: string;
  home: string;
  /** Codex's home (`--codex-home`, else CODEX_HOME, else ~/.codex). */
  codexHome?: string;
  /** `http` writes Claude Code http hooks (they let the tool run when the server is down). */
  transport: "command" | "http";
  target: HookTarget;
}

export interface PlannedFile {
  path: string;
  /** The file's new content. */
  content: string;
  /** Whether it differs from what is there (a rerun with the same options changes nothing). */
  changed: boolean;
}

export interface SetupPlan {
  files: PlannedFile[];
  /** What the user must still do or know, one line each. */
  notes: string[];
}

export type ReadFile = (path: string) => string | undefined;

export const readIfExists: ReadFile = (path) => (existsSync(path) ? readFileSync(path, "utf8") : undefined);

function readJson(read: ReadFile, path: string): Json {
  const text = read(path);
  if (text === undefined || text.trim() === "") return {};
  let value: unknown;
  try { value = JSON.parse(text); } catch (err) { throw new Error(`${path} is not valid JSON (${(err as Error).message}); fix or move it, then run setup again`); }
  if (!isObject(value)) throw new Error(`${path} does not hold a JSON object; fix or move it, then run setup again`);
  return value;
}

function jsonFile(read: ReadFile, path: string, value: Json): PlannedFile {
  const content = `${JSON.stringify(value, null, 2)}\n`;
  return { path, content, changed: read(path) !== content };
}

function claudeHandler(o: SetupOptions, event: string): Json {
  if (o.transport === "http") {
    return {
      type: "http",
      url: doorUrl(o.target.url, "claude-code", event),
      headers: { Authorization: `Bearer $${o.target.keyEnv}` },
      allowedEnvVars: [o.target.keyEnv],
      timeout: HOOK_TIMEOUT_SECONDS,
    };
  }
  return { type: "command", command: hookCommand(o.target, "claude-code", event), timeout: HOOK_TIMEOUT_SECONDS };
}

function commandHandler(o: SetupOptions, agent: "codex" | "gemini-cli", event: string): Json {
  const command = hookCommand(o.target, agent, event);
  // Gemini CLI counts its hook timeout in milliseconds, Codex in seconds.
  return agent === "gemini-cli"
    ? { type: "command", name: `sluice ${event}`, command, timeout: HOOK_TIMEOUT_SECONDS * 1000 }
    : { type: "command", command, timeout: HOOK_TIMEOUT_SECONDS };
}

function copilotHandler(o: SetupOptions, event: string): Json {
  return { type: "command", bash: hookCommand(o.target, "copilot-cli", event), timeoutSec: HOOK_TIMEOUT_SECONDS };
}

export function codexHomeOf(o: Pick<SetupOptions, "codexHome" | "home" | "scope" | "projectDir">): string {
  if (o.codexHome) return o.codexHome;
  return o.scope === "project" ? join(o.projectDir, ".codex") : join(o.home, ".codex");
}

/** The files setup writes for `o.agent`, with their merged content. */
export function planSetup(o: SetupOptions, read: ReadFile = readIfExists): SetupPlan {
  if (o.transport === "http" && o.agent !== "claude-code") throw new Error(`--transport http is for claude-code only; ${o.agent} gets command hooks`);
  const events = AGENT_EVENTS[o.agent];
  const base = o.scope === "project" ? o.projectDir : o.home;
  const notes: string[] = [];
  if (o.agent === "claude-code") {
    const path = join(base, ".claude/settings.json");
    const settings = readJson(read, path);
    settings.hooks = mergeGroupedHooks(settings.hooks, events, (e) => claudeHandler(o, e));
    if (o.transport === "http") notes.push("http hooks: when the server cannot be reached or answers an error, Claude Code runs the tool anyway (command hooks block instead)");
    return { files: [jsonFile(read, path, settings)], notes };
  }
  if (o.agent === "gemini-cli") {
    const path = join(base, ".gemini/settings.json");
    const settings = readJson(read, path);
    settings.hooks = mergeGroupedHooks(settings.hooks, events, (e) => commandHandler(o, "gemini-cli", e));
    return { files: [jsonFile(read, path, settings)], notes };
  }
  if (o.agent === "copilot-cli") {
    const path = o.scope === "project" ? join(o.projectDir, ".github/hooks/sluice.json") : join(o.home, ".copilot/hooks/sluice.json");
    const file = readJson(read, path);
    const hooks = mergeFlatHooks(file.hooks, events, (e) => copilotHandler(o, e));
    const merged = { ...file, version: 1, hooks };
    notes.push("Copilot CLI loads a folder's .github/hooks only when the folder is trusted: trust it when asked, or pass --trust-folder with -p");
    return { files: [jsonFile(read, path, merged)], notes };
  }
  const home = codexHomeOf(o);
  const hooksPath = join(home, "hooks.json");
  const hooksFile = readJson(read, hooksPath);
  hooksFile.hooks = mergeGroupedHooks(hooksFile.hooks, events, (e) => commandHandler(o, "codex", e));
  const configPath = join(home, "config.toml");
  const configText = read(configPath);
  let config: Json;
  try { config = configText ? (parseToml(configText) as Json) : {}; } catch (err) { throw new Error(`${configPath} is not valid TOML (${(err as Error).message}); fix it, then run setup again`); }
  const features = isObject(config.features) ? config.features : {};
  const alreadyOn = features.hooks === true;
  config.features = { ...features, hooks: true };
  const configContent = alreadyOn && configText !== undefined ? configText : stringifyToml(config) + "\n";
  notes.push(
    "Codex runs a new or changed hook only once it is trusted: start `codex` in this folder once and choose \"Trust all and continue\" when it shows \"Hooks need review\" (the trust is kept in config.toml under [hooks.state]); for unattended runs that already vet their hooks, `codex exec --dangerously-bypass-hook-trust` runs them without stored trust",
  );
  if (o.scope === "project" && !o.codexHome) notes.push(`Codex reads a project's .codex/ only when the project is trusted: accept "trust this folder" when Codex first starts in ${o.projectDir}, or add [projects."${o.projectDir}"] trust_level = "trusted" to your own ~/.codex/config.toml`);
  return {
    files: [jsonFile(read, hooksPath, hooksFile), { path: configPath, content: configContent, changed: configText !== configContent }],
    notes,
  };
}

/** Writes the planned files that changed; returns the paths written. */
export function applySetup(plan: SetupPlan): string[] {
  const written: string[] = [];
  for (const f of plan.files) {
    if (!f.changed) continue;
    mkdirSync(dirname(f.path), { recursive: true });
    writeFileSync(f.path, f.content);
    written.push(f.path);
  }
  return written;
}

export interface ManagedFragment {
  /** Where an organisation installs it. */
  installAt: string;
  content: string;
  notes: string[];
}

/**
 * What an organisation distributes (`--print`): the hooks, plus the agent's switches that
 * keep other hooks out where it has them.
 */
export function managedFragment(o: SetupOptions): ManagedFragment {
  const events = AGENT_EVENTS[o.agent];
  const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
  if (o.agent === "claude-code") {
    const origin = o.target.url.replace(/\/+$/, "");
    return {
      installAt: "/etc/claude-code/managed-settings.json",
      content: json({
        allowManagedHooksOnly: true,
        allowedHttpHookUrls: [`${origin}/v1/agent-hooks/*`],
        httpHookAllowedEnvVars: [o.target.keyEnv],
        hooks: mergeGroupedHooks({}, events, (e) => claudeHandler(o, e)),
      }),
      notes: [
        "allowManagedHooksOnly: only managed hooks run; user, project and local hooks are ignored",
        "allowedHttpHookUrls and httpHookAllowedEnvVars: http hooks may post only to the server and read only the key's variable",
        ...(o.transport === "command" ? [`the hook commands name ${o.target.node} and ${o.target.hook}: install sluice and node at the same paths on every machine, or edit them`] : []),
      ],
    };
  }
  if (o.agent === "gemini-cli") {
    return {
      installAt: "/etc/gemini-cli/settings.json",
      content: json({ hooksConfig: { enabled: true }, hooks: mergeGroupedHooks({}, events, (e) => commandHandler(o, "gemini-cli", e)) }),
      notes: [
        "system settings override user and project settings for the keys they set; Gemini CLI 0.61 has no switch that keeps project hooks out, so pair this with a folder-trust policy",
        `the hook commands name ${o.target.node} and ${o.target.hook}: install sluice and node at the same paths on every machine, or edit them`,
      ],
    };
  }
  if (o.agent === "copilot-cli") {
    return {
      installAt: ".github/hooks/sluice.json in each repository (or ~/.copilot/hooks/sluice.json)",
      content: json({ version: 1, hooks: mergeFlatHooks({}, events, (e) => copilotHandler(o, e)) }),
      notes: [
        "Copilot CLI 1.0 has no setting that keeps other hook files out; review .github/hooks in each repository",
        `the hook commands name ${o.target.node} and ${o.target.hook}: install sluice and node at the same paths on every machine, or edit them`,
      ],
    };
  }
  return {
    installAt: "$CODEX_HOME/hooks.json, with [features] hooks = true in $CODEX_HOME/config.toml",
    content: json({ hooks: mergeGroupedHooks({}, events, (e) => commandHandler(o, "codex", e)) }),
    notes: [
      "each machine must trust the hooks once (Codex shows \"Hooks need review\"), or run codex exec with --dangerously-bypass-hook-trust where the hooks are already vetted",
      `the hook commands name ${o.target.node} and ${o.target.hook}: install sluice and node at the same paths on every machine, or edit them`,
    ],
  };
}
