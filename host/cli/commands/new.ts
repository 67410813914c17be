/** `sluice new <name>`: scaffold a plugin that builds and passes its own samples. */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { checkPluginId } from "../../registry/ids.js";
import { CliError, print } from "../output.js";
import { scaffoldFiles } from "../scaffold.js";
import type { RegisterCommand } from "./types.js";

export const newCommand: RegisterCommand = (program) => {
  program.command("new <name>")
    .description("scaffold an AssemblyScript plugin in ./<name> (or --dir)")
    .option("--dir <dir>", "folder to create (default ./<name>)")
    .action(async (name: string, opts: { dir?: string }) => {
      checkPluginId(name);
      const dir = path.resolve(opts.dir ?? name);
      if (existsSync(dir)) throw new CliError(`${dir} already exists`, "pick another name or --dir");
      for (const [file, text] of Object.entries(scaffoldFiles(name))) {
        await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
        await writeFile(path.join(dir, file), text);
      }
      print(`created ${dir}`);
      print(`next: sluice build ${path.relative(process.cwd(), dir) || "."} && sluice test ${path.relative(process.cwd(), dir) || "."}`);
    });
};
