/** `sluice build [dir]`: compile the plugin with the ABI's compiler flags and check it like the host will. */
import path from "node:path";
import { buildPlugin, readPluginDir } from "../plugin-dir.js";
import { print } from "../output.js";
import type { RegisterCommand } from "./types.js";

export const buildCommand: RegisterCommand = (program) => {
  program.command("build [dir]")
    .description("compile the plugin in dir (default .) to build/<id>.wasm")
    .option("-o, --out <file>", "output file")
    .option("--optimize <mode>", "speed (-O3) or size (-Oz)", "speed")
    .action(async (dir: string | undefined, opts: { out?: string; optimize: string }) => {
      const p = await readPluginDir(dir ?? ".");
      const built = await buildPlugin(p, { optimize: opts.optimize === "size" ? "size" : "speed", ...(opts.out ? { out: opts.out } : {}) });
      print(`built ${path.relative(process.cwd(), built.file)} (${built.wasm.byteLength} bytes, sha256 ${built.sha256})`);
    });
};
