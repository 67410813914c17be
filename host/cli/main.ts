#!/usr/bin/env node
/** `sluice`: scaffold, build, test and manage WebAssembly hook plugins. */
import { readFileSync } from "node:fs";
import { Command } from "commander";
import { COMMANDS, invokedCommand } from "./commands/index.js";
import { EXIT } from "./exit-codes.js";
import { reportError, reportErrorJson } from "./output.js";

// dist/host/cli/main.js → the package's own package.json.
const { version } = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as { version: string };

const program = new Command("sluice")
  .description("Run untrusted WebAssembly hooks around AI agents: build plugins and manage their releases.")
  .version(version, "-V, --version", "print the version of sluice")
  .showHelpAfterError("(run with --help for usage)")
  // Commander ends usage errors with 1; sluice keeps 1 for "ran and found failures".
  .exitOverride((err) => {
    process.exit(err.exitCode === 0 ? EXIT.ok : EXIT.usage);
  });

async function main(): Promise<void> {
  const invoked = invokedCommand(process.argv.slice(2));
  // Every command is listed (help, did-you-mean); only the one being run loads its module.
  for (const entry of COMMANDS) {
    const cmd = program.command(entry.usage).description(entry.description);
    if (cmd.name() === invoked) (await entry.load())(cmd);
  }
  await program.parseAsync(process.argv);
}

main().catch((err: unknown) => {
  // --json asked for JSON on stdout: a failure is JSON there too (and nothing on stderr).
  process.exitCode = process.argv.slice(2).includes("--json") ? reportErrorJson(err) : reportError(err);
});
