/**
 * How long `sluice` takes to run as a user runs it: the installed CLI (installed.ts) in a
 * fresh process per run, beside `node -e 0` (Node's own start) in the same rounds, so the
 * figure that counts is what sluice adds to Node's start. `sluice call` and `sluice keys
 * list` talk to a running `sluice serve` (serve-process.ts).
 */
import { execFile } from "node:child_process";
import { serveBuild } from "./installed.js";
import { stats } from "./measure.js";
import { startServe } from "./serve-process.js";

/** One run of `node ...args`: wall milliseconds; a failed run throws with its output. */
function run(args: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    execFile(process.execPath, args, { env, cwd }, (err, stdout, stderr) => {
      if (err) reject(new Error(`node ${args.join(" ")} failed: ${err.message}\n${stdout}${stderr}`));
      else resolve(performance.now() - t0);
    });
  });
}

/** Median wall milliseconds of Node's start and of each sluice command line, measured in the same rounds. */
export async function cliStartTimes(runs: number): Promise<{ node: number; commands: Record<string, number> }> {
  const served = await startServe("http://127.0.0.1:9", []);
  try {
    const { main, cwd } = serveBuild();
    const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("SLUICE_"))), SLUICE_URL: served.api, SLUICE_TOKEN: served.token };
    const lines: Record<string, string[]> = {
      "--version": ["--version"],
      "--help": ["--help"],
      "call tool.before": ["call", "tool.before", "--args", '{"limit": 5}'],
      "keys list": ["keys", "list"],
    };
    const samples: Record<string, number[]> = { node: [], ...Object.fromEntries(Object.keys(lines).map((k) => [k, []])) };
    // One untimed round: the first run of each reads its files from disk.
    for (let round = -1; round < runs; round++) {
      const node = await run(["-e", "0"], env, cwd);
      if (round >= 0) samples.node!.push(node);
      for (const [name, args] of Object.entries(lines)) {
        const ms = await run([main, ...args], env, cwd);
        if (round >= 0) samples[name]!.push(ms);
      }
    }
    const median = (name: string) => stats(samples[name]!).p50;
    return { node: median("node"), commands: Object.fromEntries(Object.keys(lines).map((k) => [k, median(k)])) };
  } finally {
    await served.close();
  }
}
