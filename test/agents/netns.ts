/**
 * A network namespace with only loopback, for running the coding-agent CLIs offline with
 * the fake model and `sluice serve` beside them: `unshare -n` holds the namespace open
 * (a sleeping shell), and every process of the test enters it with `nsenter -t <pid> -n`.
 * The test itself stays outside: it talks to what runs inside through files and the
 * processes' output. Needs root (CI runs as root) and `ip` (test/setup/agents.ts).
 */
import { spawn, type ChildProcess } from "node:child_process";

export interface Exited { code: number | null; signal: string | null; stdout: string; stderr: string }

export interface Netns {
  pid: number;
  /** Starts `command` inside the namespace. */
  start(command: string, args: readonly string[], opts?: { cwd?: string; env?: NodeJS.ProcessEnv }): ChildProcess;
  /** Runs `command` inside the namespace to its exit (killed after `timeoutMs`). */
  run(command: string, args: readonly string[], opts?: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string }): Promise<Exited>;
  close(): Promise<void>;
}

export async function openNetns(): Promise<Netns> {
  const holder = spawn("unshare", ["-n", "sh", "-c", "ip link set lo up && echo up && exec sleep 86400"], { stdio: ["ignore", "pipe", "pipe"] });
  await new Promise<void>((resolve, reject) => {
    let err = "";
    holder.stderr!.on("data", (d) => (err += d));
    holder.stdout!.once("data", () => resolve());
    holder.once("exit", (code) => reject(new Error(`unshare -n exited with ${code}: ${err} (the agent tests need root and iproute2)`)));
  });
  const pid = holder.pid!;
  const start: Netns["start"] = (command, args, opts = {}) =>
    spawn("nsenter", ["-t", String(pid), "-n", "--", command, ...args], { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ["pipe", "pipe", "pipe"] });
  return {
    pid,
    start,
    run: (command, args, opts = {}) => new Promise<Exited>((resolve) => {
      const child = start(command, args, opts);
      let stdout = "";
      let stderr = "";
      child.stdout!.on("data", (d) => (stdout += d));
      child.stderr!.on("data", (d) => (stderr += d));
      child.stdin!.end(opts.input ?? "");
      const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 120_000);
      child.once("exit", (code, signal) => { clearTimeout(timer); resolve({ code, signal, stdout, stderr }); });
    }),
    close: async () => {
      if (holder.exitCode !== null) return;
      const gone = new Promise<void>((resolve) => holder.once("exit", () => resolve()));
      holder.kill("SIGKILL");
      await gone;
    },
  };
}
