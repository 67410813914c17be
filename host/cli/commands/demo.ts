/** `sluice demo`: the main job — registry, management API and a scripted agent through every reference plugin. */
import type { DefineCommand } from "./types.js";

export const demoCommand: DefineCommand = (cmd) => {
  cmd
    .option("--data-dir <dir>", "the demo's data directory (emptied first)", ".sluice/demo")
    .option("--serve", "keep the management API running after the script, until Ctrl-C")
    .option("--port <port>", "API port (0: any free one)", "0")
    .action(async (opts: { dataDir: string; serve?: boolean; port: string }) => {
      const { runDemo } = await import("../../demo/run-demo.js");
      await runDemo({ dataDir: opts.dataDir, serve: opts.serve === true, port: Number(opts.port) });
    });
};
