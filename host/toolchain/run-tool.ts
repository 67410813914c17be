/** Runs a compiler as a child process and finds programs on PATH, for the Rust and C toolchains. */
import { spawn } from "node:child_process";
import { accessSync, constants, existsSync } from "node:fs";
import path from "node:path";

export interface ToolRun { code: number | null; stdout: string; stderr: string }

/** Runs `file args` in `cwd` and collects its output; never rejects for a non-zero exit. */
export function runTool(file: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ToolRun> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => { stdout += d; });
    child.stderr.on("data", (d: Buffer) => { stderr += d; });
    child.once("error", (err) => resolve({ code: null, stdout, stderr: err.message }));
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first `name` on PATH (or in `extraDirs`, searched after it), or undefined. */
export function which(name: string, extraDirs: string[] = []): string | undefined {
  const dirs = [...(process.env.PATH ?? "").split(path.delimiter).filter(Boolean), ...extraDirs];
  for (const dir of dirs) {
    const file = path.join(dir, name);
    if (existsSync(file) && executable(file)) return file;
  }
  return undefined;
}

/** PATH without the folders that hold `program` (clang runs a `wasm-opt` it finds there, without the feature flags the module needs). */
export function pathWithout(program: string): string {
  return (process.env.PATH ?? "").split(path.delimiter).filter((dir) => dir && !existsSync(path.join(dir, program))).join(path.delimiter);
}
