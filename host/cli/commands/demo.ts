/** `sluice demo`: the main job — registry, management API and a scripted agent through every reference plugin. */
import type { RegisterCommand } from "./types.js";

export const demoCommand: RegisterCommand = (program) => {
  program.command("demo")
    .description("set up a registry with the reference plugins, start the management API, and run a scripted agent through the hooks")
    .option("--data-dir <dir>", "the demo's data directory (emptied first)", ".sluice/demo")
    .option("--serve", "keep the management API running after the script, until Ctrl-C")
    .option("--port <port>", "API port (0: any free one)", "0")
    .action(async (opts: { dataDir: string; serve?: boolean; port: string }) => {
      const { runDemo } = await import("../../demo/run-demo.js");
      await runDemo({ dataDir: opts.dataDir, serve: opts.serve === true, port: Number(opts.port) });
    });
};
