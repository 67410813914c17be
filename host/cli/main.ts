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

// A reader that stops reading (`sluice call … | head`) ends the output quietly: what it
// did not read is not an error to report, on either stream.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(process.exitCode ?? EXIT.ok);
    throw err;
  });
}

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
