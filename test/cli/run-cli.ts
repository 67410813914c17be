/** Runs the built CLI (`node dist/host/cli/main.js`; `npm run build` first) against servers in this process. */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";
import { startApiServer } from "../../host/api/server.js";
import { Registry, type RegistryOptions } from "../../host/registry/registry.js";

export const MAIN = fileURLToPath(new URL("../../dist/host/cli/main.js", import.meta.url));
export const TOKEN = "cli-test-token-42-abcdefghijklmnopqrstu";

export interface Run { code: number; stdout: string; stderr: string }

/** The environment without any SLUICE_ variable of the machine running the tests. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("SLUICE_")));
  return { ...base, ...extra };
}

/** Runs `sluice ...args`; asynchronous, so an in-process server keeps answering. */
export function sluice(args: string[], env: Record<string, string | undefined> = {}, cwd?: string): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [MAIN, ...args], { env: cleanEnv(env), cwd, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

/** Starts `sluice ...args` in the background. */
export function spawnSluice(args: string[], env: Record<string, string | undefined> = {}, cwd?: string): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [MAIN, ...args], { cwd, env: cleanEnv(env), stdio: "pipe" });
}

/** Resolves with everything `child` printed on stdout once it matches `pattern`. */
export function waitFor(child: ChildProcessWithoutNullStreams, pattern: RegExp, stream: "stdout" | "stderr" = "stdout"): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const onData = (d: Buffer) => { text += d; if (pattern.test(text)) { child[stream].off("data", onData); child.off("exit", onExit); resolve(text); } };
    const onExit = (code: number | null) => reject(new Error(`sluice exited with ${code} before printing ${pattern}: ${text}`));
    child[stream].on("data", onData);
    child.once("exit", onExit);
  });
}

export async function stop(child: ChildProcessWithoutNullStreams): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

export interface Server { url: string; registry: Registry; env: Record<string, string>; close: () => Promise<void> }

export async function serve(dataDir: string, options: Partial<RegistryOptions> = {}): Promise<Server> {
  const registry = await Registry.open({ dataDir, ...options, hostOptions: { workers: 1, ...options.hostOptions } });
  const server = await startApiServer({ registry, token: TOKEN, port: 0, logger: false });
  return { url: server.url, registry, env: { SLUICE_URL: server.url, SLUICE_TOKEN: TOKEN }, close: async () => { await server.close(); await registry.close(); } };
}
