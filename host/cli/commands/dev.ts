/**
 * `sluice dev [dir]`: the author's loop. Builds the plugin, runs its samples, then watches
 * its sources, manifest and samples: every change rebuilds with the compiler already
 * loaded in this process and re-runs the samples on a sandbox kept warm, printing the
 * results and how long they took. A broken build or sample is printed and the watch goes on.
 * Beside the watch it serves a local host (the management API, as `sluice serve` with its
 * defaults and variables: data in <dir>/.sluice/data), so `sluice deploy` and `sluice call`
 * work from another terminal; when a server already listens on the port it says so and
 * only watches. From the first change on, every rebuild is live on that server: deployed
 * there with hook.yaml's bindings as a dev revision of the manifest's version
 * (`<version>+dev.<hash>`, which only a dev server accepts), so `sluice call` runs the
 * code just built, with no version bump.
 */
import { readdirSync, watch } from "node:fs";
import path from "node:path";
import { Command } from "commander";
import { CliError, reportError, print } from "../output.js";
import { addServeOptions, resolveServeConfig } from "../serve-config.js";
import { serve } from "./serve.js";
import { buildPlugin, readPluginDir, type PluginDir } from "../plugin-dir.js";
import { localSamples, resultLines } from "./test.js";
import type { DefineCommand } from "./types.js";

// Sources of every language sluice builds (AssemblyScript, Rust, C), samples and manifests.
const WATCHED = /\.(ts|rs|c|h|toml|json|ya?ml)$/;
const FIRST = "first build";

type Registry = import("../../registry/registry.js").Registry;

/** Deploys the build to dev's own server; says what is live, or why nothing is. */
async function goLive(registry: Registry, p: PluginDir, wasm: Uint8Array): Promise<string> {
  if (!p.manifest.bindings?.length) return "not live: hook.yaml has no bindings section (sluice deploy binds those)";
  try {
    const done = await registry.deploy({ manifest: p.manifestText, wasm, note: "sluice dev" });
    return `live: ${done.plugin.id}@${done.plugin.version} (${done.bindings.map((b) => b.id).join(", ")}) in revision ${done.active_revision}; sluice call runs it`;
  } catch (err) {
    return `not live: ${(err as { code?: string }).code ? `${(err as { code: string }).code}: ` : ""}${(err as Error).message}`;
  }
}

export const devCommand: DefineCommand = (cmd) => {
  cmd
    .option("--no-serve", "only watch: do not serve a local host")
    .action(async (dir: string | undefined, opts: { serve: boolean }) => {
      const root = path.resolve(dir ?? ".");
      const registry = opts.serve ? await serveBeside(root) : undefined;
      const { createSandbox } = await import("../../sandbox/main/sandbox.js");
      // idleMs 0 would let the workers go between runs; keep them (and the compiled SDK) warm.
      const sandbox = createSandbox({ workers: 1, idleMs: 3_600_000 });
      let running = false;
      let again: { why: string; rebuild: boolean } | undefined;
      let wasm: Uint8Array | undefined;
      const cycle = async (why: string, rebuild: boolean): Promise<void> => {
        if (running) { again = { why, rebuild: rebuild || again?.rebuild === true }; return; }
        running = true;
        const t0 = performance.now();
        try {
          print(`— ${why}`);
          const p = await readPluginDir(root);
          // Only samples changed: the module is the same, so it is not compiled again.
          const built = rebuild || wasm === undefined;
          if (built) { wasm = undefined; wasm = (await buildPlugin(p)).wasm; }
          const module = wasm!;
          const results = await localSamples(sandbox, p, module);
          for (const line of resultLines(results)) print(line);
          // The first build is the author's to deploy (`sluice deploy`); each edit after it is live here.
          if (registry && (built || why.includes("hook.yaml")) && why !== FIRST) print(await goLive(registry, p, module));
        } catch (err) {
          // A broken build or sample is this run's result: on stdout, in order with the rest.
          reportError(err, process.stdout);
        }
        print(`results in ${Math.round(performance.now() - t0)} ms; watching ${path.relative(process.cwd(), root) || "."} (Ctrl-C to stop)`);
        running = false;
        if (again !== undefined) { const next = again; again = undefined; await cycle(next.why, next.rebuild); }
      };
      let timer: NodeJS.Timeout | undefined;
      const changed = new Set<string>();
      // One plain watcher per folder, set up before the first results are printed (a
      // recursive watcher on Linux adds its subfolders later, missing early changes).
      const watchers = foldersOf(root).map((folder) => watch(folder, (_event, file) => {
        if (!file) return;
        const rel = path.relative(root, path.join(folder, String(file))).split(path.sep).join("/");
        if (!WATCHED.test(rel)) return;
        changed.add(rel);
        // Editors write a file in several steps: one run per burst.
        clearTimeout(timer);
        timer = setTimeout(() => {
          const files = [...changed].sort();
          changed.clear();
          void cycle(`changed: ${files.join(", ")}`, files.some((f) => !f.startsWith("samples/")));
        }, 50);
      }));
      await cycle(FIRST, true);
      const stop = async () => { for (const w of watchers) w.close(); clearTimeout(timer); await sandbox.close(); process.exit(0); };
      process.once("SIGINT", () => void stop());
      process.once("SIGTERM", () => void stop());
    });
};

/**
 * The plugin folder and its subfolders, but build/ (our own output), target/ (cargo's),
 * node_modules/ and dot folders (editors' files, a local server's .sluice/data). A folder made later is not watched.
 */
function foldersOf(root: string): string[] {
  const out = [root];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name === "build" || entry.name === "target" || entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    out.push(...foldersOf(path.join(root, entry.name)));
  }
  return out;
}

/**
 * `sluice serve` with its defaults and SLUICE_* variables, accepting dev revisions; its
 * registry, or undefined when the port is taken (then it says where one runs).
 */
async function serveBeside(root: string): Promise<Registry | undefined> {
  const options = addServeOptions(new Command("serve")).exitOverride();
  options.parse([], { from: "user" });
  // The data folder is the plugin's (git-ignored .sluice/data), wherever dev is run from.
  const config = resolveServeConfig({ ...options.opts(), ...(process.env.SLUICE_DATA_DIR ? {} : { dataDir: path.join(root, ".sluice", "data") }) });
  try {
    return (await serve(config, { devRevisions: true })).registry;
  } catch (err) {
    if (!(err instanceof CliError) || !err.message.includes("the port is in use")) throw err;
    print(`a server already listens on ${config.host}:${config.port}: deploy to it with \`sluice deploy\` (this dev session only watches; edits are not live there)`);
    return undefined;
  }
}
