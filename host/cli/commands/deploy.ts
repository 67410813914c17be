/**
 * `sluice deploy [dir]`: the last step from an empty folder to a live hook. Everything is
 * checked before anything is stored: hook.yaml's bindings and their configs (the
 * registry's own checks, run here), the build, and the samples (a failing sample stops the
 * deploy unless --force). Then one call, POST /api/v1/deploy, uploads, binds, publishes
 * and activates in one server transaction: when any step fails nothing is stored. A
 * binding that already exists in the draft is replaced (it keeps its place); hook.yaml's
 * bindings are not part of the locked version, so changing only them needs no version bump.
 */
import { checkManifestBindings } from "../../registry/manifest-bindings.js";
import type { DeployResult } from "../../registry/registry.js";
import { EXIT } from "../exit-codes.js";
import { CliError, emit, step, warn } from "../output.js";
import { moduleFor, readPluginDir } from "../plugin-dir.js";
import { publishedLines } from "./releases.js";
import { clientOf, remoteOptions } from "./remote.js";
import { localSamples, resultLines } from "./test.js";
import type { DefineCommand } from "./types.js";
import { uploadedLine } from "./upload.js";

export const deployCommand: DefineCommand = (cmd) => {
  remoteOptions(cmd)
    .option("--module <file>", "deploy this module instead of building")
    .option("--no-activate", "publish without activating")
    .option("--force", "deploy even when samples fail")
    .option("--note <text>", "a note kept with the release")
    .option("--json", "print JSON")
    .action(async (dir: string | undefined, opts: { module?: string; activate: boolean; force?: boolean; note?: string; json?: boolean; url: string; token?: string; tokenFile?: string }) => {
      const p = await readPluginDir(dir ?? ".");
      if (!p.manifest.bindings?.length) throw new CliError(`${p.dir}/hook.yaml has no bindings section, so deploy has nothing to bind`, "add one, e.g.\n    bindings:\n      - point: tool.before\n        config: { max_limit: 100 }\n  or bind by hand with `sluice upload`, `sluice bind` and `sluice publish --activate`");
      checkManifestBindings(p.manifest);
      const client = clientOf(opts);
      const wasm = await moduleFor(p, opts.module);
      const { createSandbox } = await import("../../sandbox/main/sandbox.js");
      const sandbox = createSandbox({ workers: 1 });
      let samples;
      try {
        samples = await step("running samples", () => localSamples(sandbox, p, wasm));
      } finally {
        await sandbox.close();
      }
      const failed = samples.filter((s) => !s.pass);
      if (failed.length > 0) {
        if (!opts.force) {
          for (const line of resultLines(samples)) process.stderr.write(`${line}\n`);
          throw new CliError(`${failed.length} of ${samples.length} samples failed, so nothing was deployed`, "fix the hook or its samples (`sluice test` shows them), or deploy anyway with --force", EXIT.failed);
        }
        warn(`${failed.length} of ${samples.length} samples failed; deploying anyway (--force)`);
      }
      const done = await step(`deploying ${p.manifest.id}@${p.manifest.version} (${wasm.byteLength} bytes)`, () => client.call<DeployResult>(client.api.POST("/api/v1/deploy", {
        body: { manifest: p.manifestText, wasm_base64: Buffer.from(wasm).toString("base64"), activate: opts.activate, ...(opts.note ? { note: opts.note } : {}) },
      })));
      const ref = `${p.manifest.id}@${p.manifest.version}`;
      emit(opts, { ...done, samples: { passed: samples.length - failed.length, failed: failed.length } }, () => [
        uploadedLine({ plugin: done.plugin, created: done.uploaded }),
        ...done.bindings.map((b) => `${b.created ? "bound" : "rebound"} ${b.id}: ${ref} at ${b.point}`),
        ...publishedLines(done, opts.activate),
      ]);
    });
};
