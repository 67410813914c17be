/**
 * How each pinned coding-agent CLI runs offline against the fake model: its binary, the
 * environment and flags that keep it local and non-interactive, and where its home and
 * project live. The tests and the fixture recorder share it.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse, stringify } from "smol-toml";

export type AgentName = "claude-code" | "codex" | "gemini-cli" | "copilot-cli";
export const AGENTS: readonly AgentName[] = ["claude-code", "codex", "gemini-cli", "copilot-cli"];

export function agentsPackageDir(): string {
  // The same folder whether this file runs from test/agents (vitest) or dist/test/agents (node).
  const here = fileURLToPath(new URL(".", import.meta.url));
  return here.includes("/dist/test/agents") ? here.replace("/dist/test/agents", "/test/agents") : here;
}

export function binOf(agent: AgentName): string {
  const bin = { "claude-code": "claude", codex: "codex", "gemini-cli": "gemini", "copilot-cli": "copilot" }[agent];
  return join(agentsPackageDir(), "node_modules/.bin", bin);
}

export interface AgentRun {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** A temporary machine for one agent: HOME, a project folder, Codex's home. */
export interface AgentWorld {
  home: string;
  project: string;
  codexHome: string;
}

export function makeWorld(root: string): AgentWorld {
  const world = { home: join(root, "home"), project: join(root, "project"), codexHome: join(root, "home", ".codex") };
  for (const d of Object.values(world)) mkdirSync(d, { recursive: true });
  return world;
}

/** The variable every agent reads its (fake) model key from. */
export const MODEL_KEY = "sk-fake-model-key";

const quiet: NodeJS.ProcessEnv = {
  DISABLE_TELEMETRY: "1",
  DISABLE_ERROR_REPORTING: "1",
  DISABLE_AUTOUPDATER: "1",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  NO_COLOR: "1",
  CI: "1",
};

function baseEnv(world: AgentWorld, extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const keep = ["PATH", "LANG", "TERM", "TZ"];
  const env: NodeJS.ProcessEnv = {};
  for (const k of keep) if (process.env[k] !== undefined) env[k] = process.env[k];
  return { ...env, HOME: world.home, USER: "tester", TMPDIR: join(world.home, "tmp"), ...quiet, ...extra };
}

/**
 * The command that runs one prompt through `agent` against the model at `modelUrl`.
 * Writes the agent's own model settings (Codex's provider, Gemini's auth) when it needs them.
 */
export function agentRun(agent: AgentName, world: AgentWorld, modelUrl: string, prompt: string, extraEnv: NodeJS.ProcessEnv = {}): AgentRun {
  mkdirSync(join(world.home, "tmp"), { recursive: true });
  const bin = binOf(agent);
  if (agent === "claude-code") {
    return {
      command: bin,
      args: ["-p", prompt, "--output-format", "json", "--allowedTools", "Bash"],
      env: baseEnv(world, { ANTHROPIC_BASE_URL: modelUrl, ANTHROPIC_API_KEY: MODEL_KEY, ...extraEnv }),
      cwd: world.project,
    };
  }
  if (agent === "codex") {
    writeCodexProvider(world.codexHome, modelUrl);
    return {
      command: bin,
      args: ["exec", "--skip-git-repo-check", "--json", "--dangerously-bypass-hook-trust", "-s", "danger-full-access", prompt],
      env: baseEnv(world, { CODEX_HOME: world.codexHome, FAKE_MODEL_API_KEY: MODEL_KEY, ...extraEnv }),
      cwd: world.project,
    };
  }
  if (agent === "gemini-cli") {
    writeGeminiAuth(world.home);
    return {
      command: bin,
      args: ["-p", prompt, "--output-format", "json", "--yolo"],
      env: baseEnv(world, { GOOGLE_GEMINI_BASE_URL: modelUrl, GEMINI_API_KEY: MODEL_KEY, GEMINI_CLI_TRUST_WORKSPACE: "true", ...extraEnv }),
      cwd: world.project,
    };
  }
  return {
    command: bin,
    args: ["-p", prompt, "--allow-all-tools", "--trust-folder", "--output-format", "json", "--disable-client-telemetry"],
    env: baseEnv(world, { COPILOT_OFFLINE: "true", COPILOT_PROVIDER_BASE_URL: `${modelUrl}/v1`, COPILOT_PROVIDER_API_KEY: MODEL_KEY, COPILOT_MODEL: "gpt-test", ...extraEnv }),
    cwd: world.project,
  };
}

/** Codex's model provider: the fake model, over the Responses API, merged into config.toml. */
export function writeCodexProvider(codexHome: string, modelUrl: string): void {
  mkdirSync(codexHome, { recursive: true });
  const file = join(codexHome, "config.toml");
  const config = existsSync(file) ? (parse(readFileSync(file, "utf8")) as Record<string, unknown>) : {};
  config.model = "gpt-test";
  config.model_provider = "fake";
  const providers = (config.model_providers ?? {}) as Record<string, unknown>;
  providers.fake = { name: "fake", base_url: `${modelUrl}/v1`, wire_api: "responses", env_key: "FAKE_MODEL_API_KEY" };
  config.model_providers = providers;
  writeFileSync(file, stringify(config));
}

/** Gemini CLI's auth choice (an API key), merged into the user's settings.json. */
export function writeGeminiAuth(home: string): void {
  const dir = join(home, ".gemini");
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "settings.json");
  const settings = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>) : {};
  settings.security = { ...(settings.security as object | undefined), auth: { selectedType: "gemini-api-key" } };
  writeFileSync(file, JSON.stringify(settings, null, 2));
}
