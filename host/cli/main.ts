#!/usr/bin/env node
/** `sluice`: scaffold, build, test and manage WebAssembly hook plugins. */
import { Command } from "commander";
import { COMMANDS } from "./commands/index.js";
import { reportError } from "./output.js";

const program = new Command("sluice")
  .description("Run untrusted WebAssembly hooks around AI agents: build plugins and manage their releases.")
  .showHelpAfterError("(run with --help for usage)");
for (const register of COMMANDS) register(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  process.exitCode = reportError(err);
});
