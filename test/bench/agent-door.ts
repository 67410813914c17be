/**
 * The coding agents' door: one agent event through `sluice serve`'s API server with
 * shell-guard bound (server time, by inject, and the HTTP round trip on a kept-alive
 * connection), and sluice-hook's start-to-exit time against `node -e 0` in the same run.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startApiServer } from "../../host/api/server.js";
import { GatewayKeys } from "../../host/keys/keys.js";
import { Registry } from "../../host/registry/registry.js";
import { pluginInput } from "../../host/registry/plugin-input.js";
import { memoryEventLog } from "../../host/agents/event-log.js";
import { memoryPairing } from "../../host/agents/pairing.js";
import { interleave } from "./measure.js";
import type { Counts, ScenarioResult, Target } from "./scenarios.js";
import { built, repoRoot } from "./systems.js";

const target = (name: string, measured: number, limit: number, unit: string): Target => ({ name, measured, limit, op: "<=", unit, met: measured <= limit });
const TOKEN = "bench-agent-door-token-0123456789abcdef";
const EVENT = JSON.stringify({ session_id: "bench", transcript_path: "/tmp/t.jsonl", cwd: "/work", permission_mode: "default", hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "ls -la src && git status", description: "look around" }, tool_use_id: "toolu_bench_000000" });
/** Each event a tool call of its own, as an agent sends them: the door denies a tool-use id it saw before without running a hook. */
let calls = 0;
const nextEvent = (): string => EVENT.replace("toolu_bench_000000", `toolu_bench_${String(++calls).padStart(6, "0")}`);

/** One Claude Code PreToolUse with shell-guard bound: the door's server time and its HTTP round trip. */
export async function agentEvent(id: number, c: Counts): Promise<ScenarioResult> {
  const dataDir = mkdtempSync(join(tmpdir(), "sluice-bench-door-"));
  const registry = await Registry.open({ dataDir, hostOptions: { workers: 1 } });
  const keys = new GatewayKeys(":memory:");
  // No post follows these pres: the one key may keep all of them waiting.
  const agentDoor = { events: memoryEventLog(), pairing: memoryPairing({ maxPerKey: Number.POSITIVE_INFINITY }) };
  const server = await startApiServer({ registry, token: TOKEN, gatewayKeys: keys, logger: false, port: 0, agentDoor });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await registry.host.loadPlugin(pluginInput(readFileSync(join(repoRoot(), "plugins/shell-guard/hook.yaml"), "utf8"), built("plugins/shell-guard.wasm")));
    registry.host.activate({ revision: 1, bindings: [{ id: "shell-guard", hookRef: "shell-guard@1.1.0", point: "tool.before", match: { toolIds: ["shell"] } }] });
    const { key } = await keys.create({ spaceId: "bench", scope: "hooks" });
    const url = new URL(server.url);
    const headers = { "content-type": "application/json", authorization: `Bearer ${key}`, host: url.host };
    const inject = async () => {
      const r = await server.app.inject({ method: "POST", url: "/v1/agent-hooks/claude-code/PreToolUse", headers, payload: nextEvent() });
      if (r.statusCode !== 200) throw new Error(`bench: the door answered ${r.statusCode}`);
    };
    const http = () => new Promise<void>((resolve, reject) => {
      const event = nextEvent();
      const req = request({ host: url.hostname, port: url.port, method: "POST", path: "/v1/agent-hooks/claude-code/PreToolUse", agent, headers: { ...headers, "content-length": String(Buffer.byteLength(event)) } }, (res) => {
        res.resume();
        res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`bench: the door answered ${res.statusCode}`))));
      });
      req.on("error", reject);
      req.end(event);
    });
    const latency = await interleave([{ name: "door-server-time", call: inject }, { name: "door-http-round-trip", call: http }], { warmup: Math.min(c.warmup, 500), samples: c.samples, rotate: true, roundWarmup: 2 });
    return {
      id, title: "a Claude Code PreToolUse through the agents' door with shell-guard bound (server time by inject; HTTP round trip, kept alive)", latency,
      targets: [target("door server time p50", latency["door-server-time"]!.p50 / 1000, 1, "ms"), target("door HTTP round trip p50", latency["door-http-round-trip"]!.p50 / 1000, 3, "ms")],
    };
  } finally {
    agent.destroy();
    await server.close();
    await keys.close();
    await registry.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function run(args: string[], stdin: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ["pipe", "ignore", "ignore"] });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`bench: ${args.join(" ")} exited ${code}`))));
    child.stdin.end(stdin);
  });
}

/** sluice-hook per event (start, post to a door, print, exit) against `node -e 0`, interleaved. */
export async function sluiceHookStart(id: number, c: Counts): Promise<ScenarioResult> {
  const dataDir = mkdtempSync(join(tmpdir(), "sluice-bench-hook-"));
  const registry = await Registry.open({ dataDir, hostOptions: { workers: 1 } });
  const keys = new GatewayKeys(":memory:");
  const server = await startApiServer({ registry, token: TOKEN, gatewayKeys: keys, logger: false, port: 0 });
  try {
    const { key } = await keys.create({ spaceId: "bench", scope: "hooks" });
    const env = { PATH: process.env.PATH ?? "", SLUICE_HOOKS_KEY: key };
    const bin = join(repoRoot(), "dist/host/agents/sluice-hook.cjs");
    const samples = Math.max(2, Math.min(c.samples, 40));
    const latency = await interleave([
      { name: "node-e-0", call: () => run(["-e", "0"], "", env) },
      { name: "sluice-hook", call: () => run([bin, "claude-code", "PreToolUse", "--url", server.url, "--key-env", "SLUICE_HOOKS_KEY"], nextEvent(), env) },
    ], { warmup: Math.min(c.warmup, 3), samples, perRound: 5, rotate: true });
    const added = (latency["sluice-hook"]!.p50 - latency["node-e-0"]!.p50) / 1000;
    return {
      id, title: "sluice-hook per event (start, post, print, exit) against node -e 0, same run", latency,
      values: { addedMs: Math.round(added * 10) / 10 },
      targets: [target("sluice-hook p50 over node -e 0", added, 15, "ms")],
    };
  } finally {
    await server.close();
    await keys.close();
    await registry.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
