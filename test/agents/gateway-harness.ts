/**
 * One coding agent using `sluice serve`'s gateway as its model API, the way a user points it
 * there, inside a loopback-only network namespace: the gateway upstream (gateway-upstream.ts)
 * as every protocol's upstream, `sluice serve --upstream --anthropic-upstream
 * --gemini-upstream` from the build, pii-redact and prompt-guard uploaded, bound and
 * released with the `sluice` CLI, a gateway key from `sluice keys create`, and the agent's
 * base URL on the relay in front of the gateway. Every step runs the real CLI.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import { until } from "../helpers/until.js";
import type { OperationRecord } from "../../host/records/types.js";
import { agentRun, makeWorld, type AgentName, type AgentWorld } from "./clis.js";
import type { UpstreamRecord } from "./gateway-upstream.js";
import { lineFrom, repo, stop } from "./harness.js";
import { openNetns, type Exited, type Netns } from "./netns.js";

const sluiceMain = join(repo, "dist/host/cli/main.js");
const upstreamMain = join(repo, "dist/test/agents/gateway-upstream-main.js");

/** The word prompt-guard is configured to refuse. */
export const DENIED_WORD = "salary";
/** The shell command the upstream asks for; the turn's proof that the tool ran. */
export const TOOL_COMMAND = "echo tool-ran > ran.txt";

/** The variable each agent reads its model key from (Codex: its provider's env_key, clis.ts). */
const KEY_ENV: Record<AgentName, string> = { "claude-code": "ANTHROPIC_API_KEY", codex: "FAKE_MODEL_API_KEY", "gemini-cli": "GEMINI_API_KEY", "copilot-cli": "COPILOT_PROVIDER_API_KEY" };

export interface GatewayTurn {
  exit: Exited;
  /** The agent's stdout and stderr together. */
  output: string;
  /** What the upstream and the relay recorded so far. */
  upstream(): UpstreamRecord;
}

export interface GatewayBench {
  agent: AgentName;
  world: AgentWorld;
  ns: Netns;
  /** The gateway's origin and the relay's (the agent's base URL). */
  gateway: string;
  relay: string;
  gatewayKey: string;
  /** Runs one prompt through the agent against the gateway, with the gateway key or `key`. */
  run(prompt: string, key?: string): Promise<GatewayTurn>;
  /** The gateway's record of one operation, read with `sluice operation`. */
  operation(operationId: string): Promise<OperationRecord>;
  upstream(): UpstreamRecord;
  close(): Promise<void>;
}

export async function startGatewayBench(agent: AgentName): Promise<GatewayBench> {
  const root = mkdtempSync(join(tmpdir(), `gateway-world-${agent}-`));
  const world = makeWorld(root);
  const ns = await openNetns();
  const children: ChildProcess[] = [];
  const close = async () => {
    for (const c of children.reverse()) await stop(c);
    await ns.close();
    rmSync(root, { recursive: true, force: true });
  };
  try {
    const recordFile = join(root, "upstream.json");
    const upstreamProcess = ns.start(process.execPath, [upstreamMain, recordFile, TOOL_COMMAND]);
    children.push(upstreamProcess);
    const upstreamUrl = await lineFrom(upstreamProcess, /gateway upstream listening on (http:\/\/\S+)/, "the gateway upstream");
    const upstream = () => JSON.parse(readFileSync(recordFile, "utf8")) as UpstreamRecord;

    const dataDir = join(root, "sluice-data");
    const env: NodeJS.ProcessEnv = {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("SLUICE_"))),
      SLUICE_UPSTREAM_API_KEY: "sk-upstream-openai", SLUICE_ANTHROPIC_UPSTREAM_API_KEY: "sk-upstream-anthropic", SLUICE_GEMINI_UPSTREAM_API_KEY: "upstream-gemini",
    };
    const serve = ns.start(process.execPath, [
      sluiceMain, "serve", "--data-dir", dataDir, "--port", "0", "--gateway-port", "0",
      "--upstream", upstreamUrl, "--anthropic-upstream", upstreamUrl, "--gemini-upstream", upstreamUrl,
    ], { cwd: root, env });
    children.push(serve);
    const gatewayLine = lineFrom(serve, /gateway listening on (http:\/\/\S+)/, "the gateway of sluice serve");
    const api = await lineFrom(serve, /sluice listening on (http:\/\/\S+)/, "sluice serve");
    const gateway = new URL(await gatewayLine).origin;
    await until(() => existsSync(join(dataDir, "api-token")), 15_000);
    const cliEnv: NodeJS.ProcessEnv = { ...env, SLUICE_URL: api, SLUICE_TOKEN_FILE: join(dataDir, "api-token"), HOME: world.home };
    const sluice = async (args: readonly string[]) => {
      const r = await ns.run(process.execPath, [sluiceMain, ...args], { cwd: root, env: cliEnv, timeoutMs: 120_000 });
      if (r.code !== 0) throw new Error(`sluice ${args.join(" ")} exited with ${r.code}: ${r.stdout}${r.stderr}`);
      return r.stdout;
    };

    // The reference plugins are built by `npm run build`: upload their modules instead of compiling them again.
    for (const plugin of ["pii-redact", "prompt-guard"]) await sluice(["upload", join(repo, "plugins", plugin), "--module", join(repo, "build/plugins", `${plugin}.wasm`)]);
    // pii-redact where its hook.yaml expects it: its chunk hook redacts the stream and its after hook (stream_rewrite: chunk) judges it read-only, one extension.
    await sluice(["bind", "pii-redact@1.0.0", "--point", "model.chat.chunk", "--extension", "pii"]);
    await sluice(["bind", "pii-redact@1.0.0", "--point", "model.chat.after", "--extension", "pii"]);
    await sluice(["bind", "prompt-guard@1.0.0", "--point", "model.chat.before", "--config", JSON.stringify({ deny: [DENIED_WORD] })]);
    await sluice(["publish", "--activate", "--yes"]);
    const { key: gatewayKey } = JSON.parse(await sluice(["keys", "create", "--space", "agents", "--json"])) as { key: string };

    upstreamProcess.stdin!.write(`relay ${gateway}\n`);
    const relay = await lineFrom(upstreamProcess, /relay listening on (http:\/\/\S+)/, "the relay");

    const run = async (prompt: string, key = gatewayKey): Promise<GatewayTurn> => {
      const r = agentRun(agent, world, relay, prompt, { [KEY_ENV[agent]]: key });
      const exit = await ns.run(r.command, r.args, { cwd: r.cwd, env: r.env, timeoutMs: 240_000 });
      return { exit, output: `${exit.stdout}\n${exit.stderr}`, upstream };
    };
    const operation = async (operationId: string) => (JSON.parse(await sluice(["operation", operationId, "--json"])) as { operation: OperationRecord }).operation;
    return { agent, world, ns, gateway, relay, gatewayKey, run, operation, upstream, close };
  } catch (err) {
    await close();
    throw err;
  }
}
