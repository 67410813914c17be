/** `sluice new <name>`: scaffold a plugin that builds and passes its own samples. */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { checkPluginId } from "../../registry/ids.js";
import { CliError, emit } from "../output.js";
import { scaffoldFiles } from "../scaffold.js";
import type { RegisterCommand } from "./types.js";

export const newCommand: RegisterCommand = (program) => {
  program.command("new <name>")
    .description("scaffold an AssemblyScript plugin in ./<name> (or --dir)")
    .option("--dir <dir>", "folder to create (default ./<name>)")
    .option("--json", "print JSON")
    .action(async (name: string, opts: { dir?: string; json?: boolean }) => {
      checkPluginId(name);
      const dir = path.resolve(opts.dir ?? name);
      if (existsSync(dir)) throw new CliError(`${dir} already exists`, "pick another name or --dir");
      for (const [file, text] of Object.entries(scaffoldFiles(name))) {
        await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
        await writeFile(path.join(dir, file), text);
      }
      const rel = path.relative(process.cwd(), dir) || ".";
      emit(opts, { dir, files: Object.keys(scaffoldFiles(name)) }, () => [`created ${dir}`, `next: cd ${rel} && sluice dev   (rebuilds and re-runs the samples on every change), then sluice deploy`]);
    });
};
