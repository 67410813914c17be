/**
 * `sluice test [dir]`: run the plugin's samples (samples/*.json) through the real sandbox
 * and pipeline rules, locally; with --remote, through the server's dry-run endpoint.
 */
import type { SampleResult } from "../../toolchain/samples.js";
import { isDeepStrictEqual } from "node:util";
import { CliError, print, step } from "../output.js";
import { moduleFor, readPluginDir } from "../plugin-dir.js";
import { clientOf, remoteOptions } from "./remote.js";
import type { RegisterCommand } from "./types.js";

export const testCommand: RegisterCommand = (program) => {
  remoteOptions(program.command("test [dir]"))
    .description("run the samples of the plugin in dir (default .); --remote runs them on the server's stored version")
    .option("--module <file>", "use this module instead of building")
    .option("--remote", "dry-run on the server (the uploaded id@version) instead of locally")
    .action(async (dir: string | undefined, opts: { module?: string; remote?: boolean; url: string; token?: string }) => {
      const p = await readPluginDir(dir ?? ".");
      let results: { name: string; pass: boolean; mismatches: string[]; durationMs: number; fuel?: number; fuelLimit?: number; warning?: string }[];
      if (opts.remote) {
        results = await remoteSamples(p.dir, `${p.manifest.id}`, p.manifest.version, opts);
      } else {
        const wasm = await moduleFor(p, opts.module);
        const { createSandbox } = await import("../../sandbox/sandbox.js");
        const { loadPlugin, runPluginSamples } = await import("../../toolchain/samples.js");
        const sandbox = createSandbox({ workers: 1 });
        try {
          const loaded = await loadPlugin(sandbox, p.dir, wasm);
          results = await step("running samples", () => runPluginSamples(sandbox, loaded));
        } finally {
          await sandbox.close();
        }
      }
      if (results.length === 0) throw new CliError(`no samples in ${p.dir}/samples`, "add samples/<name>.json files (see the ones `sluice new` writes)");
      for (const r of results) {
        const fuel = r.fuel !== undefined && r.fuelLimit !== undefined ? `, fuel ${r.fuel.toLocaleString("en-US")} of ${r.fuelLimit.toLocaleString("en-US")}` : "";
        print(`${r.pass ? "✓" : "✗"} ${r.name} (${r.durationMs.toFixed(1)} ms${fuel})`);
        for (const m of r.mismatches) print(`    ${m}`);
        if (r.warning) print(`    warning: ${r.warning}`);
      }
      const failed = results.filter((r) => !r.pass).length;
      print(`${results.length - failed} passed, ${failed} failed`);
      if (failed > 0) process.exitCode = 1;
    });
};

/** One-stage samples only: the dry-run endpoint runs one point once. */
async function remoteSamples(dir: string, id: string, version: string, opts: { url: string; token?: string }): Promise<Pick<SampleResult, "name" | "pass" | "mismatches" | "durationMs" | "fuel" | "fuelLimit" | "warning">[]> {
  const { loadSamples, fuelWarning } = await import("../../toolchain/samples.js");
  const client = clientOf(opts);
  const out: Pick<SampleResult, "name" | "pass" | "mismatches" | "durationMs" | "fuel" | "fuelLimit" | "warning">[] = [];
  for (const s of await loadSamples(dir)) {
    if (!s.point || !s.payload) continue;
    const { result } = await client.request<{ result: { outcome: string; payload: unknown; total_ms: number; fuel: number; fuel_limit: number; error?: { code: string; message: string } } }>(
      "POST", `/api/v1/plugins/${encodeURIComponent(id)}/versions/${encodeURIComponent(version)}/test`, { point: s.point, payload: s.payload, config: s.config ?? {} });
    const mismatches: string[] = [];
    if (s.expect?.outcome && s.expect.outcome !== result.outcome) mismatches.push(`outcome: expected ${s.expect.outcome}, got ${result.outcome}${result.error ? ` (${result.error.code}: ${result.error.message})` : ""}`);
    if (s.expect?.payload && !isDeepStrictEqual(s.expect.payload, result.payload)) mismatches.push(`payload: expected ${JSON.stringify(s.expect.payload)}, got ${JSON.stringify(result.payload)}`);
    const warning = fuelWarning(result.fuel, result.fuel_limit);
    out.push({ name: s.name, pass: mismatches.length === 0, mismatches, durationMs: result.total_ms, fuel: result.fuel, fuelLimit: result.fuel_limit, ...(warning ? { warning } : {}) });
  }
  return out;
}
