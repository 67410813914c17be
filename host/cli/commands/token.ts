/**
 * `sluice token rotate`: the only way a data folder's generated token changes. `sluice
 * serve` writes one on its first start and reuses it on every later one, so clients that
 * read the file keep working across restarts.
 */
import { Option } from "commander";
import { emit } from "../output.js";
import { DEFAULT_DATA_DIR } from "./remote.js";
import type { DefineCommand } from "./types.js";

export const tokenCommands: DefineCommand = (group) => {
  group.command("rotate")
    .description("replace <data-dir>/api-token with a new token; a running sluice serve keeps the old one until it restarts")
    .addOption(new Option("--data-dir <dir>", "the server's data folder").env("SLUICE_DATA_DIR").default(DEFAULT_DATA_DIR))
    .option("--json", "print JSON")
    .action(async (opts: { dataDir: string; json?: boolean }) => {
      const { rotateTokenFile } = await import("../../api/token.js");
      const file = rotateTokenFile(opts.dataDir);
      emit(opts, { file }, () => [`wrote a new token to ${file} (mode 0600); restart sluice serve on ${opts.dataDir} to use it`]);
    });
};
