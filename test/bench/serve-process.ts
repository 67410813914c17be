/**
 * `sluice serve` as shipped, for the gateway scenarios: the packed tarball installed in an
 * empty folder (installed.ts), run as a child process with its defaults
 * (data dir on disk in a temporary folder, SQLite records and keys, JSON logs at the default
 * level written to a file, as a service manager would keep them), a real token, the reference
 * plugins uploaded, bound and released and a gateway key made through the management API.
 * SLUICE_BENCH_CPU_PROF=<dir> runs it under `node --cpu-prof` (the profile is written on exit).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./systems.js";
import { serveBuild } from "./installed.js";

export interface ServeProcess {
  pid: number;
  api: string;
  /** The management API's bearer token. */
  token: string;
  /** The gateway's OpenAI base URL (…/v1). */
  gateway: string;
  /** The gateway's origin: the base URL the Anthropic and Gemini clients take (it serves both protocols too, on the same fake upstream). */
  gatewayOrigin: string;
  gatewayKey: string;
  dataDir: string;
  /** CPU time (user + system, every thread) the process has used, in µs (clock-tick resolution). */
  cpuUs(): number;
  close(): Promise<void>;
}

/** A binding made with `sluice bind`: the plugin, its point, and the models it applies to. */
export interface BenchBinding { plugin: string; point: string; models: string; extension?: string }


function ticksOf(pid: number): number {
  // Fields after the command name (which is in parentheses and may hold spaces): utime is the 14th field, stime the 15th.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return Number(fields[11]) + Number(fields[12]);
}

export async function startServe(upstream: string, bindings: readonly BenchBinding[]): Promise<ServeProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), "sluice-bench-serve-"));
  const token = randomBytes(32).toString("base64url");
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("SLUICE_")));
  const prof = process.env.SLUICE_BENCH_CPU_PROF;
  const log = openSync(join(dataDir, "serve.log"), "a");
  const child: ChildProcess = spawn(process.execPath, [...(prof ? ["--cpu-prof", `--cpu-prof-dir=${prof}`] : []), serveBuild().main, "serve", "--data-dir", join(dataDir, "data"), "--port", "0", "--upstream", `${upstream}/v1`, "--anthropic-upstream", upstream, "--gemini-upstream", upstream, "--gateway-port", "0"], {
    env: { ...env, SLUICE_TOKEN: token }, stdio: ["ignore", "pipe", log], cwd: serveBuild().cwd,
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const urls = await new Promise<{ api: string; gateway: string }>((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => reject(new Error(`sluice serve did not start: ${text}`)), 60_000);
    child.stdout!.on("data", (d: Buffer) => {
      text += d;
      const api = /sluice listening on (http:\/\/\S+)/.exec(text)?.[1];
      const gateway = /gateway listening on (http:\/\/\S+\/v1)/.exec(text)?.[1];
      if (api && gateway) { clearTimeout(timer); resolve({ api, gateway }); }
    });
    child.once("exit", (code) => { clearTimeout(timer); reject(new Error(`sluice serve exited with ${code}: ${text}${readFileSync(join(dataDir, "serve.log"), "utf8").slice(-2000)}`)); });
  });
  const call = async (path: string, body: unknown, status: number) => {
    const res = await fetch(`${urls.api}/api/v1${path}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    if (res.status !== status) throw new Error(`POST ${path}: HTTP ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  try {
    // What `sluice upload`, `sluice bind` and `sluice publish` send, without a CLI process per step.
    for (const plugin of new Set(bindings.map((b) => b.plugin))) {
      await call("/plugins", { manifest: readFileSync(join(repoRoot(), "plugins", plugin, "hook.yaml"), "utf8"), wasm_base64: readFileSync(join(repoRoot(), "build/plugins", `${plugin}.wasm`)).toString("base64") }, 201);
    }
    for (const [i, b] of bindings.entries()) {
      await call("/bindings", { id: `bench-${i}`, hook_ref: `${b.plugin}@1.0.0`, point: b.point, match: { model_ids: [b.models] }, ...(b.extension ? { extension: b.extension } : {}) }, 201);
    }
    if (bindings.length > 0) await call("/releases", { activate: true }, 201);
    const { key } = (await call("/gateway/keys", { space_id: "space-bench", name: "bench" }, 201)) as { key: string };
    const tick = 1e6 / 100; // CLK_TCK is 100 on Linux
    return {
      pid: child.pid!, api: urls.api, token, gateway: urls.gateway, gatewayOrigin: new URL(urls.gateway).origin, gatewayKey: key, dataDir,
      cpuUs: () => ticksOf(child.pid!) * tick,
      close: async () => {
        child.kill("SIGTERM");
        await exited;
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    child.kill("SIGKILL");
    await exited;
    throw err;
  }
}
