/**
 * One coding agent wired to Sluice the way a user wires it, inside a loopback-only network
 * namespace: the fake model scripting a shell command, `sluice serve` from the build with
 * plugins deployed by `sluice deploy`, a hooks key from `sluice keys create --scope hooks`,
 * and the agent's hooks installed by `sluice agents setup`. Every step runs the real CLI.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { packageRoot } from "../../host/cli/agents/hook-command.js";
import { until } from "../helpers/until.js";
import { agentRun, makeWorld, type AgentName, type AgentWorld } from "./clis.js";
import type { ModelRequest } from "./fake-model.js";
import { openNetns, type Exited, type Netns } from "./netns.js";

/** The repository, whether this file runs from test/agents (vitest) or dist/test/agents (the bench). */
export const repo = packageRoot(fileURLToPath(import.meta.url));
const sluiceMain = join(repo, "dist/host/cli/main.js");
const fakeModelMain = join(repo, "dist/test/agents/fake-model-main.js");
export const HOOK_KEY_ENV = "SLUICE_HOOK_KEY";

/** A plugin folder `sluice deploy` binds by its own hook.yaml. */
export const PLUGINS = {
  shellGuard: join(repo, "plugins/shell-guard"),
  secretRedact: join(repo, "plugins/secret-redact"),
  shellRewrite: join(repo, "test/fixtures/agent-plugins/shell-rewrite"),
  shellAsk: join(repo, "test/fixtures/agent-plugins/shell-ask"),
};

/** What one scripted turn left: the agent's exit, and what the model was asked and told. */
export interface Turn {
  exit: Exited;
  requests: ModelRequest[];
  toolCalls: Array<{ name: string; args: Record<string, unknown> }>;
  /** Whether any request the agent sent the model after the tool call holds `text`. */
  modelWasTold(text: string | RegExp): boolean;
}

export interface AgentBench {
  agent: AgentName;
  world: AgentWorld;
  root: string;
  ns: Netns;
  api: string;
  hooksKey: string;
  /** Runs one turn in which the model asks the agent to run the shell `command` (in `where`, by default the set-up world). */
  turn(command: string, prompt?: string, where?: AgentWorld): Promise<Turn>;
  /** Runs `sluice <args>` inside the namespace against this server. */
  sluice(args: readonly string[], cwd?: string): Promise<Exited>;
  stopServer(): Promise<void>;
  close(): Promise<void>;
}

export function lineFrom(child: ChildProcess, pattern: RegExp, what: string, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    const timer = setTimeout(() => reject(new Error(`${what} did not start within ${timeoutMs} ms: ${out}${err}`)), timeoutMs);
    child.stdout!.on("data", (d) => {
      out += d;
      const m = pattern.exec(out);
      if (m) { clearTimeout(timer); resolve(m[1]!); }
    });
    child.stderr!.on("data", (d) => (err += d));
    child.once("exit", (code) => { clearTimeout(timer); reject(new Error(`${what} exited with ${code}: ${out}${err}`)); });
  });
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  await gone;
}

/** Starts the server for `agent` with `plugins` deployed in order, and sets the agent up. The caller closes it. */
export async function startAgentBench(agent: AgentName, plugins: readonly string[]): Promise<AgentBench> {
  const root = mkdtempSync(join(tmpdir(), `agent-world-${agent}-`));
  const world = makeWorld(root);
  const ns = await openNetns();
  const children: ChildProcess[] = [];
  const close = async () => {
    for (const c of children) await stop(c);
    await ns.close();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const dataDir = join(root, "sluice-data");
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("SLUICE_")));
    const serve = ns.start(process.execPath, [sluiceMain, "serve", "--data-dir", dataDir, "--port", "0"], { cwd: root, env });
    children.push(serve);
    const api = await lineFrom(serve, /sluice listening on (http:\/\/\S+)/, "sluice serve");
    await until(() => existsSync(join(dataDir, "api-token")), 15_000);
    const cliEnv: NodeJS.ProcessEnv = { ...env, SLUICE_URL: api, SLUICE_TOKEN_FILE: join(dataDir, "api-token"), HOME: world.home };
    const sluice = (args: readonly string[], cwd = world.project) => ns.run(process.execPath, [sluiceMain, ...args], { cwd, env: cliEnv, timeoutMs: 120_000 });
    const must = async (args: readonly string[], cwd?: string) => {
      const r = await sluice(args, cwd);
      if (r.code !== 0) throw new Error(`sluice ${args.join(" ")} exited with ${r.code}: ${r.stdout}${r.stderr}`);
      return r.stdout;
    };

    // The reference plugins are built by `npm run build`: deploy their modules instead of compiling them again.
    for (const plugin of plugins) {
      const built = join(repo, "build/plugins", `${plugin.split("/").at(-1)}.wasm`);
      await must(["deploy", plugin, ...(plugin.startsWith(join(repo, "plugins/")) && existsSync(built) ? ["--module", built] : [])]);
    }
    const created = JSON.parse(await must(["keys", "create", "--space", "agents", "--scope", "hooks", "--json"])) as { key: string };
    await must(["agents", "setup", agent, "--url", api, "--key-env", HOOK_KEY_ENV, ...(agent === "codex" ? ["--codex-home", world.codexHome] : [])]);

    let turns = 0;
    const turn = async (command: string, prompt = "Run the command the task needs.", where = world): Promise<Turn> => {
      const record = join(root, `model-${++turns}.json`);
      const model = ns.start(process.execPath, [fakeModelMain, record, command]);
      children.push(model);
      try {
        const modelUrl = await lineFrom(model, /fake model listening on (http:\/\/\S+)/, "the fake model");
        const run = agentRun(agent, where, modelUrl, prompt, { [HOOK_KEY_ENV]: created.key });
        const exit = await ns.run(run.command, run.args, { cwd: run.cwd, env: run.env, timeoutMs: 240_000 });
        await stop(model);
        const seen = JSON.parse(readFileSync(record, "utf8")) as { requests: ModelRequest[]; toolCalls: Turn["toolCalls"] };
        const afterCall = seen.requests.filter((r) => r.toolResults.length > 0).map((r) => JSON.stringify(r.body));
        return {
          exit, ...seen,
          modelWasTold: (text) => afterCall.some((body) => (typeof text === "string" ? body.includes(text) : text.test(body))),
        };
      } finally {
        await stop(model);
      }
    };
    return {
      agent, world, root, ns, api, hooksKey: created.key, turn, sluice,
      stopServer: () => stop(serve),
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
