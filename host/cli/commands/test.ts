/**
 * `sluice test [dir]`: run the plugin's samples (samples/*.json) through the real sandbox
 * and pipeline rules, locally; with --remote, through the server's dry-run endpoint.
 * Samples are checked first as the server checks a binding (sample-checks.ts).
 */
import type { SampleResult } from "../../toolchain/samples.js";
import { causeOf } from "../../errors/error-cause.js";
import { levelName } from "../../pipeline/guest-logs.js";
import { logLines, type ShownLogs } from "../shown-logs.js";
import { EXIT } from "../exit-codes.js";
import { CliError, emit, mark, step } from "../output.js";
import { moduleFor, readPluginDir, type PluginDir } from "../plugin-dir.js";
import { clientOf, remoteOptions } from "./remote.js";
import type { DefineCommand } from "./types.js";
import type { AnswerOf } from "../client.js";

/** A guest's log lines as `sluice test` shows them: the author's own run, so in full. */

/** The error a sample ended with, and the catalogued cause a HOOK_FAILED wraps (e.g. GUEST_FUEL_EXHAUSTED). */
export interface ShownError { code: string; message: string; cause?: { code: string; message: string } }

export type SampleSummary = Pick<SampleResult, "name" | "pass" | "mismatches" | "durationMs"> & {
  file?: string; fuel?: number; fuelLimit?: number; warning?: string; error?: ShownError; logs?: ShownLogs;
};

export const testCommand: DefineCommand = (cmd) => {
  remoteOptions(cmd)
    .option("--module <file>", "use this module instead of building")
    .option("--remote", "dry-run on the server (the uploaded id@version) instead of locally")
    .option("--json", "print JSON")
    .option("--verbose", "print every sample's guest log lines (a failing sample's are always printed)")
    .action(async (dir: string | undefined, opts: { module?: string; remote?: boolean; json?: boolean; verbose?: boolean; url: string; token?: string }) => {
      const p = await readPluginDir(dir ?? ".");
      // What `sluice deploy` would bind is checked here too, by the registry's own code.
      const { checkManifestBindings } = await import("../../registry/manifest-bindings.js");
      checkManifestBindings(p.manifest);
      let results: SampleSummary[];
      if (opts.remote) {
        results = await remoteSamples(p, opts);
      } else {
        const wasm = await moduleFor(p, opts.module);
        const { createSandbox } = await import("../../sandbox/main/sandbox.js");
        const sandbox = createSandbox({ workers: 1 });
        try {
          results = await step("running samples", () => localSamples(sandbox, p, wasm));
        } finally {
          await sandbox.close();
        }
      }
      if (results.length === 0) throw new CliError(`no samples in ${p.dir}/samples`, "add samples/<name>.json files (see the ones `sluice new` writes)");
      const failed = results.filter((r) => !r.pass).length;
      emit(opts, {
        passed: results.length - failed, failed,
        results: results.map((r) => ({
          name: r.name, ...(r.file ? { file: r.file } : {}), pass: r.pass, mismatches: r.mismatches, duration_ms: r.durationMs,
          ...(r.fuel !== undefined ? { fuel: r.fuel, fuel_limit: r.fuelLimit } : {}), ...(r.warning ? { warning: r.warning } : {}),
          ...(r.error ? { error: r.error } : {}), ...(r.logs ? { logs: r.logs } : {}),
        })),
      }, () => resultLines(results, { verbose: opts.verbose === true }));
      if (failed > 0) process.exitCode = EXIT.failed;
    });
};

/**
 * One line per sample, its mismatches indented under it, then the totals. A failing
 * sample's guest log lines follow its mismatches (what an author needs to see why);
 * with `verbose`, every sample's.
 */
export function resultLines(results: readonly SampleSummary[], options: { verbose?: boolean } = {}): string[] {
  const failed = results.filter((r) => !r.pass).length;
  return [
    ...results.flatMap((r) => [
      `${mark(r.pass)} ${r.name} (${r.durationMs.toFixed(1)} ms${r.fuel !== undefined && r.fuelLimit !== undefined ? `, fuel ${r.fuel.toLocaleString("en-US")} of ${r.fuelLimit.toLocaleString("en-US")}` : ""})`,
      ...r.mismatches.map((m) => `    ${m}`),
      ...(r.warning ? [`    warning: ${r.warning}`] : []),
      ...(r.logs && (!r.pass || options.verbose) ? logLines(r.logs) : []),
    ]),
    `${results.length - failed} passed, ${failed} failed`,
  ];
}

/** A local result as `sluice test` shows it: log levels by name, the error with its cause. */
function summaryOf(r: SampleResult): SampleSummary {
  const { actual: { error }, logs, steps: _steps, expected: _expected, actual: _actual, ...rest } = r;
  const cause = error ? causeOf(error) : undefined;
  return {
    ...rest,
    ...(error ? { error: { code: error.code, message: error.message, ...(cause ? { cause } : {}) } } : {}),
    ...(logs ? { logs: { lines: logs.lines.map((l) => ({ level: levelName(l.level), message: l.message })), dropped: logs.dropped } } : {}),
  };
}

/** The samples through a sandbox the caller owns (`sluice dev` keeps one warm). */
export async function localSamples(sandbox: import("../../sandbox/main/sandbox.js").Sandbox, p: PluginDir, wasm: Uint8Array): Promise<SampleSummary[]> {
  const { loadPlugin, runPluginSamples } = await import("../../toolchain/samples.js");
  const loaded = await loadPlugin(sandbox, p.dir, wasm);
  return (await runPluginSamples(sandbox, loaded)).map(summaryOf);
}

/** One-stage samples only: the dry-run endpoint runs one point once. */
async function remoteSamples(p: PluginDir, opts: { url: string; token?: string }): Promise<SampleSummary[]> {
  const { loadSamples, fuelWarning } = await import("../../toolchain/samples.js");
  const { sampleProblems } = await import("../../toolchain/sample-checks.js");
  const { diffLines } = await import("../../objects/json-diff.js");
  const client = clientOf(opts);
  const out: SampleSummary[] = [];
  for (const s of await loadSamples(p.dir)) {
    if (!s.point || !s.payload) continue;
    const problems = sampleProblems(s, p.manifest);
    if (problems.length > 0) { out.push({ name: s.name, pass: false, mismatches: problems, durationMs: 0 }); continue; }
    const { result } = await client.call<AnswerOf<"/api/v1/plugins/{id}/versions/{version}/test", "post">>(
      client.api.POST("/api/v1/plugins/{id}/versions/{version}/test", { params: { path: { id: p.manifest.id, version: p.manifest.version } }, body: { point: s.point, payload: s.payload, config: s.config ?? {} } }));
    const mismatches: string[] = [];
    if (s.expect?.outcome && s.expect.outcome !== result.outcome) mismatches.push(`outcome: expected ${s.expect.outcome}, got ${result.outcome}${result.error ? ` (${result.error.code}: ${result.error.message})` : ""}`);
    if (s.expect?.payload) mismatches.push(...diffLines("payload", s.expect.payload, result.payload));
    const warning = fuelWarning(result.fuel, result.fuel_limit);
    out.push({
      name: s.name, pass: mismatches.length === 0, mismatches, durationMs: result.total_ms, fuel: result.fuel, fuelLimit: result.fuel_limit,
      ...(warning ? { warning } : {}), ...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}), ...(result.logs ? { logs: result.logs } : {}),
    });
  }
  return out;
}
