/**
 * Records the model requests each coding-agent CLI sends into
 * test/fixtures/model-requests/<agent>/<n>-<route>.json (method, path, body), for the
 * gateway's tests that replay them (test/gateway/cli-requests.test.ts): the agent runs one
 * scripted shell turn against the fake model. Run it inside a loopback-only network
 * namespace, from the build, as root:
 *
 *   unshare -n sh -c 'ip link set lo up; exec node dist/test/agents/record-model-requests.js [agent...]'
 *
 * The bodies keep their shape: what names this machine is replaced as in the hook fixtures
 * (record-fixtures.ts), and every string longer than {@link LONGEST} characters (the CLIs'
 * system prompts and tool descriptions, which are theirs, not ours) is cut to its start and
 * its length.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agentRun, makeWorld, type AgentName } from "./clis.js";
import { startFakeModel } from "./fake-model.js";
import { scrub } from "./scrub.js";

const repo = join(import.meta.dirname, "../../..");
const fixtures = join(repo, "test/fixtures/model-requests");
const RECORDED: readonly AgentName[] = ["claude-code", "codex", "gemini-cli"];
export const LONGEST = 300;

function cut(value: unknown): unknown {
  if (typeof value === "string") return value.length > LONGEST ? `${value.slice(0, 80)} …[${value.length} characters cut]` : value;
  if (Array.isArray(value)) return value.map(cut);
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cut(v)]));
  return value;
}

function routeName(url: string): string {
  const path = url.split("?")[0]!;
  return path.includes(":") ? path.split(":").at(-1)! : path.split("/").at(-1)!;
}

async function record(agent: AgentName): Promise<string[]> {
  const root = mkdtempSync(join(tmpdir(), `record-${agent}-`));
  const world = makeWorld(root);
  const model = await startFakeModel({ command: "echo recorded" });
  try {
    const run = agentRun(agent, world, model.url, "Run the command the task needs.");
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(run.command, run.args, { cwd: run.cwd, env: run.env, stdio: ["ignore", "ignore", "ignore"] });
      const timer = setTimeout(() => child.kill("SIGKILL"), 180_000);
      child.on("exit", (c) => { clearTimeout(timer); resolve(c); });
    });
    process.stderr.write(`[${agent}] exit ${code}; model requests: ${model.requests.map((r) => `${r.method} ${r.url}`).join(", ")}\n`);
    const dir = join(fixtures, agent);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    const names: string[] = [];
    for (const [i, r] of model.requests.filter((q) => q.method === "POST").entries()) {
      const name = `${i + 1}-${routeName(r.url)}.json`;
      const text = scrub(JSON.stringify({ method: r.method, url: r.url, body: cut(r.body) }), world, root);
      writeFileSync(join(dir, name), `${JSON.stringify(JSON.parse(text), null, 2)}\n`);
      names.push(name);
    }
    return names;
  } finally {
    await model.close();
    rmSync(root, { recursive: true, force: true });
  }
}

const named = process.argv.slice(2) as AgentName[];
for (const agent of named.length ? named : RECORDED) process.stderr.write(`[${agent}] recorded ${(await record(agent)).join(", ")}\n`);
