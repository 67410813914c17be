/** `sluice build [dir]`: compile the plugin with the ABI's compiler flags and check it like the host will. */
import path from "node:path";
import { buildPlugin, readPluginDir } from "../plugin-dir.js";
import { CliError, emit } from "../output.js";
import type { DefineCommand } from "./types.js";

export const buildCommand: DefineCommand = (cmd) => {
  cmd
    .option("-o, --out <file>", "output file")
    .option("--optimize <mode>", "speed (-O3) or size (-Oz)", "speed")
    .option("--json", "print JSON")
    .action(async (dir: string | undefined, opts: { out?: string; optimize: string; json?: boolean }) => {
      if (opts.optimize !== "speed" && opts.optimize !== "size") throw new CliError(`--optimize must be speed or size, got ${JSON.stringify(opts.optimize)}`);
      const p = await readPluginDir(dir ?? ".");
      const built = await buildPlugin(p, { optimize: opts.optimize, ...(opts.out ? { out: opts.out } : {}) });
      emit(opts, { file: built.file, bytes: built.wasm.byteLength, sha256: built.sha256 }, () => [`built ${path.relative(process.cwd(), built.file)} (${built.wasm.byteLength} bytes, sha256 ${built.sha256})`]);
    });
};
