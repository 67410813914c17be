/**
 * `sluice replay <operation-id>`: the server runs a recorded operation's hook chain again
 * (its payload store must be enabled) with the plugin built from this folder, or with
 * another stored version (--version), and this prints what would change. The real tool or
 * model is never called.
 */
import type { ReplayResult } from "../../registry/replay.js";
import { EXIT } from "../exit-codes.js";
import { emit } from "../output.js";
import { moduleFor, readPluginDir } from "../plugin-dir.js";
import { clientOf, remoteOptions } from "./remote.js";
import type { DefineCommand } from "./types.js";

export const replayCommand: DefineCommand = (cmd) => {
  remoteOptions(cmd)
    .option("--dir <dir>", "the plugin folder to build and replay with (default .)")
    .option("--module <file>", "use this module instead of building")
    .option("--ref <id@version>", "replay with this stored plugin version instead of a local build")
    .option("--exit-code", "exit with 1 when something would change")
    .option("--json", "print JSON")
    .action(async (operationId: string, opts: { dir?: string; module?: string; ref?: string; exitCode?: boolean; json?: boolean; url: string; token?: string }) => {
      let body: Record<string, string>;
      if (opts.ref) body = { hook_ref: opts.ref };
      else {
        const p = await readPluginDir(opts.dir ?? ".");
        const wasm = await moduleFor(p, opts.module);
        body = { manifest: p.manifestText, wasm_base64: Buffer.from(wasm).toString("base64") };
      }
      const { replay } = await clientOf(opts).call<{ replay: ReplayResult }>(clientOf(opts).api.POST("/api/v1/operations/{id}/replay", { params: { path: { id: operationId } }, body }));
      emit(opts, replay, () => replayLines(replay));
      if (opts.exitCode && replay.changed) process.exitCode = EXIT.failed;
    });
};

const show = (v: unknown): string => JSON.stringify(v) ?? "undefined";

export function replayLines(r: ReplayResult): string[] {
  const lines = [`operation ${r.operation_id} (revision ${r.revision}) replayed with ${r.replacement}: ${r.changed ? "changes" : "no change"}`];
  for (const s of r.stages) {
    lines.push(`  ${s.point}${s.changed ? "" : ": unchanged"}`);
    if (!s.changed) continue;
    for (const h of s.hooks) {
      const was = h.recorded ? `${h.recorded.outcome}${h.recorded.error_code ? ` ${h.recorded.error_code}` : ""}` : "did not run";
      const now = h.replayed ? `${h.replayed.outcome}${h.replayed.error_code ? ` ${h.replayed.error_code}` : ""}` : "does not run";
      lines.push(`    ${h.binding_id} (${h.hook_ref}${h.replaced ? ", replaced" : ""}): ${h.changed ? `${was} → ${now}` : `${now} (unchanged)`}`);
    }
    if (s.stop.recorded !== s.stop.replayed) lines.push(`    stop: ${s.stop.recorded ?? "none"} → ${s.stop.replayed ?? "none"}`);
    for (const d of s.output) lines.push(`    output${d.path}: ${"expected" in d ? show(d.expected) : "(absent)"} → ${"actual" in d ? show(d.actual) : "(absent)"}`);
    if (s.output_unavailable) lines.push("    output: changed (the recorded output is no longer in the payload store)");
  }
  return lines;
}
