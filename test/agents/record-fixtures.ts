/**
 * Records each coding-agent CLI's hook stdin into test/fixtures/agents/<agent>/<event>.json:
 * every event of the agent gets a command hook that copies its stdin to a file, and the agent
 * runs one scripted shell turn against the fake model. Run it inside a loopback-only network
 * namespace, from the build, as root:
 *
 *   unshare -n sh -c 'ip link set lo up; exec node dist/test/agents/record-fixtures.js [agent...]'
 *
 * The recorded payloads keep their shape; values that name this machine (the temporary HOME,
 * session ids, timestamps) are replaced by stable placeholders. A second turn runs a command
 * that fails, for the failure events.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AGENTS, agentRun, makeWorld, type AgentName, type AgentWorld } from "./clis.js";
import { startFakeModel } from "./fake-model.js";
import { scrub } from "./scrub.js";
import { AGENT_EVENTS } from "../../host/cli/agents/events.js";

const repo = join(import.meta.dirname, "../../..");
const fixtures = join(repo, "test/fixtures/agents");

function recordingHooks(agent: AgentName, world: AgentWorld, rec: string): void {
  const cmd = (event: string) => `cat > '${rec}/${event}.json'`;
  const events = AGENT_EVENTS[agent];
  if (agent === "copilot-cli") {
    const hooks = Object.fromEntries(events.map((e) => [e, [{ type: "command", bash: cmd(e), timeoutSec: 30 }]]));
    mkdirSync(join(world.project, ".github/hooks"), { recursive: true });
    writeFileSync(join(world.project, ".github/hooks/record.json"), JSON.stringify({ version: 1, hooks }, null, 2));
    return;
  }
  const hooks = Object.fromEntries(events.map((e) => [e, [{ hooks: [{ type: "command", command: cmd(e) }] }]]));
  if (agent === "claude-code") {
    mkdirSync(join(world.project, ".claude"), { recursive: true });
    writeFileSync(join(world.project, ".claude/settings.json"), JSON.stringify({ hooks }, null, 2));
  } else if (agent === "gemini-cli") {
    mkdirSync(join(world.project, ".gemini"), { recursive: true });
    writeFileSync(join(world.project, ".gemini/settings.json"), JSON.stringify({ hooks }, null, 2));
  } else {
    writeFileSync(join(world.codexHome, "hooks.json"), JSON.stringify({ hooks }, null, 2));
    writeFileSync(join(world.codexHome, "config.toml"), "[features]\nhooks = true\n");
  }
}

async function record(agent: AgentName, command: string, keep: boolean): Promise<string[]> {
  const root = mkdtempSync(join(tmpdir(), `record-${agent}-`));
  const world = makeWorld(root);
  const rec = join(root, "rec");
  mkdirSync(rec);
  recordingHooks(agent, world, rec);
  writeFileSync(join(world.project, "notes.txt"), "hello\n");
  const model = await startFakeModel({ command });
  try {
    const run = agentRun(agent, world, model.url, "Show me notes.txt.");
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(run.command, run.args, { cwd: run.cwd, env: run.env, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d) => (stdout += d));
      child.stderr.on("data", (d) => (stderr += d));
      const timer = setTimeout(() => child.kill("SIGKILL"), 180_000);
      child.on("exit", (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
    });
    process.stderr.write(`[${agent}] exit ${out.code}; model requests: ${model.requests.map((r) => `${r.method} ${r.url}`).join(", ")}; tool calls: ${model.toolCalls.length}; results: ${model.toolResults().length}\n`);
    if (out.code !== 0) process.stderr.write(`${out.stdout.slice(-3000)}\n${out.stderr.slice(-3000)}\n`);
    const dir = join(fixtures, agent);
    mkdirSync(dir, { recursive: true });
    // A second run with a failing command adds only the events the first did not see.
    const names = readdirSync(rec).filter((f) => f.endsWith(".json") && !(keep && existsSync(join(dir, f))));
    for (const f of names) {
      const raw = readFileSync(join(rec, f), "utf8");
      const scrubbed = scrub(raw, world, root);
      const pretty = JSON.stringify(JSON.parse(scrubbed), null, 2);
      writeFileSync(join(dir, f), `${pretty}\n`);
    }
    return names;
  } finally {
    await model.close();
    rmSync(root, { recursive: true, force: true });
  }
}

const named = process.argv.slice(2) as AgentName[];
for (const agent of named.length ? named : AGENTS) {
  for (const [command, keep] of [["cat notes.txt", false], ["cat missing.txt", true]] as const) {
    const names = await record(agent, command, keep);
    process.stderr.write(`[${agent}] ${command}: recorded ${names.join(", ") || "nothing new"}\n`);
  }
}
