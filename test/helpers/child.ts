/** Child processes for the multi-process tests: compiled test files run with node, and files they leave as signals. */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./fixtures.js";
import { until } from "./until.js";

export interface Child { process: ChildProcess; stderr: () => string; exited: Promise<number | null> }

/** Runs `dist/<script>` (a compiled test file) with `args`. */
export function runCompiled(script: string, args: readonly string[], env: Record<string, string> = {}): Child {
  const child = spawn(process.execPath, [join(repoRoot, "dist", script), ...args], { stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, ...env } });
  let stderr = "";
  child.stderr!.on("data", (d) => { stderr += String(d); });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { process: child, stderr: () => stderr, exited };
}

/**
 * Runs `node <args>` to its exit and gives what it printed and its exit code (its signal's
 * name when killed); one still running after `timeoutMs` is killed and reported as such.
 */
export async function runToExit(args: readonly string[], timeoutMs = 10_000): Promise<{ out: string; err: string; code: number | string }> {
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d) => { out += String(d); });
  child.stderr!.on("data", (d) => { err += String(d); });
  const code = await new Promise<number | string>((resolve) => {
    const timer = setTimeout(() => { child.kill("SIGKILL"); resolve(`still running after ${timeoutMs / 1000} s`); }, timeoutMs);
    child.on("exit", (c, signal) => { clearTimeout(timer); resolve(c ?? String(signal)); });
  });
  return { out, err, code };
}

/**
 * Writes a child's signal file whole: to a temporary name, then renamed, because the parent
 * polls for the name (`filesAppear`) and would otherwise read it half written.
 */
export function writeWhole(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

/** Resolves once every file exists in `dir`; rejects after `timeoutMs`, naming the missing ones and the children's stderr. */
export async function filesAppear(dir: string, files: readonly string[], children: readonly Child[] = [], timeoutMs = 30_000): Promise<void> {
  if (await until(() => files.every((f) => existsSync(join(dir, f))), timeoutMs)) return;
  const missing = files.filter((f) => !existsSync(join(dir, f)));
  throw new Error(`never appeared in ${dir}: ${missing.join(", ")}; children said: ${children.map((c) => c.stderr()).join("\n")}`);
}
