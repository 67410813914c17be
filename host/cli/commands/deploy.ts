/**
 * `sluice deploy [dir]`: the last step from an empty folder to a live hook. The server and
 * its token are checked first (waiting for a `sluice dev` or `sluice serve` that is
 * starting), then everything is checked before anything is stored: hook.yaml's bindings
 * and their configs (the registry's own checks, run here), the build, and the samples (a
 * failing sample stops the deploy unless --force). Then one call, POST /api/v1/deploy,
 * uploads, binds, publishes and activates in one server transaction: when any step fails
 * nothing is stored. A binding that already exists in the draft is replaced (it keeps its
 * place); hook.yaml's bindings are not part of the locked version, so changing only them
 * needs no version bump. With --git the package is built from a commit of a repository,
 * which the stored version records.
 */
import { checkManifestBindings } from "../../registry/manifest-bindings.js";
import type { PluginSource } from "../../registry/records.js";
import type { DeployResult } from "../../registry/registry.js";
import { isSluiceError } from "../../errors/sluice-error.js";
import { EXIT } from "../exit-codes.js";
import { checkoutGit } from "../git-source.js";
import { npmInstall } from "../npm-install.js";
import { CliError, emit, step, warn } from "../output.js";
import { moduleFor, readPluginDir, type PluginDir } from "../plugin-dir.js";
import { publishedLines } from "./releases.js";
import { readyClient, remoteOptions } from "./remote.js";
import { localSamples, resultLines } from "./test.js";
import type { DefineCommand } from "./types.js";
import { uploadedLine } from "./upload.js";

interface DeployOptions {
  module?: string; activate: boolean; force?: boolean; note?: string; json?: boolean; waitMs: string;
  git?: string; ref?: string; path?: string; url: string; token?: string; tokenFile?: string;
}

export const deployCommand: DefineCommand = (cmd) => {
  remoteOptions(cmd)
    .option("--module <file>", "deploy this module instead of building")
    .option("--no-activate", "publish without activating")
    .option("--force", "deploy even when samples fail")
    .option("--note <text>", "a note kept with the release")
    .option("--git <repository>", "build the package from a Git repository (a path or any URL git reaches) instead of dir; the version records the repository and the commit")
    .option("--ref <ref>", "with --git: the commit, tag or branch (default: the default branch)")
    .option("--path <dir>", "with --git: the package's folder in the repository (default: its root)")
    .option("--wait-ms <ms>", "how long to wait for a server that is starting (and for the token it writes)", "30000")
    .option("--json", "print JSON")
    .action(async (dir: string | undefined, opts: DeployOptions) => {
      if (opts.git === undefined && (opts.ref !== undefined || opts.path !== undefined)) throw new CliError("--ref and --path go with --git <repository>");
      if (opts.git !== undefined && dir !== undefined) throw new CliError(`give the package as dir (${dir}) or as --git ${opts.git}, not both`);
      if (opts.git !== undefined && opts.module !== undefined) throw new CliError("--module deploys a module already built; --git builds one: give one of them");
      const waitMs = Number(opts.waitMs);
      if (!(Number.isInteger(waitMs) && waitMs >= 0)) throw new CliError(`--wait-ms must be a whole number of milliseconds, got ${JSON.stringify(opts.waitMs)}`);
      if (opts.git === undefined) {
        // hook.yaml's own checks take no time; then the server and the token, before the build and the samples.
        const p = await readPluginDir(dir ?? ".");
        checkDeployable(p);
        return deployFrom(p, opts, await readyClient(opts, waitMs));
      }
      const client = await readyClient(opts, waitMs);
      const checkout = await step(`cloning ${opts.git}${opts.ref ? ` at ${opts.ref}` : ""}`, () => checkoutGit(opts.git!, { ...(opts.ref !== undefined ? { ref: opts.ref } : {}), ...(opts.path !== undefined ? { path: opts.path } : {}) }));
      try {
        await deployFrom(await readPluginDir(checkout.dir), opts, client, checkout.source);
      } finally {
        await checkout.remove();
      }
    });
};

/** hook.yaml has bindings, and each passes the registry's own checks. */
function checkDeployable(p: PluginDir, source?: PluginSource): void {
  if (!p.manifest.bindings?.length) throw new CliError(`${source ? `hook.yaml of ${source.repository} at ${source.commit.slice(0, 12)}` : `${p.dir}/hook.yaml`} has no bindings section, so deploy has nothing to bind`, "add one, e.g.\n    bindings:\n      - point: tool.before\n        config: { max_limit: 100 }\n  or bind by hand with `sluice upload`, `sluice bind` and `sluice publish --activate`");
  checkManifestBindings(p.manifest);
}

async function deployFrom(p: PluginDir, opts: DeployOptions, client: Awaited<ReturnType<typeof readyClient>>, source?: PluginSource): Promise<void> {
  checkDeployable(p, source);
  const wasm = source ? await buildCheckout(p) : await moduleFor(p, opts.module);
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
    body: { manifest: p.manifestText, wasm_base64: Buffer.from(wasm).toString("base64"), activate: opts.activate, ...(opts.note ? { note: opts.note } : {}), ...(source ? { source } : {}) },
  })));
  // The version stored: on a `sluice dev` server a changed module is a dev revision of the manifest's.
  const ref = `${done.plugin.id}@${done.plugin.version}`;
  emit(opts, { ...done, samples: { passed: samples.length - failed.length, failed: failed.length } }, () => [
    uploadedLine({ plugin: done.plugin, created: done.uploaded }),
    ...(source ? [`from ${source.repository} at ${source.commit}${source.path ? ` (${source.path})` : ""}`] : []),
    ...done.bindings.map((b) => `${b.created ? "bound" : "rebound"} ${b.id}: ${ref} at ${b.point}`),
    ...publishedLines(done, opts.activate),
  ]);
}

/** A fresh checkout's build: its compiler is installed (npm install) when neither sluice nor the checkout has one. */
async function buildCheckout(p: PluginDir): Promise<Uint8Array> {
  try {
    return await moduleFor(p);
  } catch (err) {
    if (!isSluiceError(err, "TOOLCHAIN_MISSING")) throw err;
    const failure = await step("installing the package's compiler (npm install)", () => npmInstall(p.dir));
    if (failure !== undefined) throw new CliError(`npm install in the checkout failed (${failure})`, "the package's package.json must list its compiler (sluice new writes one that does)", EXIT.failed);
    return moduleFor(p);
  }
}
