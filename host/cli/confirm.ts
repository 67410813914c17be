/**
 * Confirmation of an action that changes what serves: asked only of a person at a
 * terminal (stdin and stderr both TTYs). `--yes` skips it; without a terminal (a script, CI)
 * the command acts, as it always has, so scripts keep working.
 */
import { createInterface } from "node:readline/promises";
import { CliError } from "./output.js";
import { EXIT } from "./exit-codes.js";

/** True when the question would be asked: a terminal on both ends and no --yes. */
export function asksConfirmation(opts: { yes?: boolean }): boolean {
  return opts.yes !== true && process.stdin.isTTY === true && process.stderr.isTTY === true;
}

/**
 * Shows `lines` (what will change, with direction) and asks `question`; resolves when the
 * answer is yes, throws a CliError (exit "usage") when it is anything else.
 */
export async function confirmOnTerminal(opts: { yes?: boolean }, question: string, lines: readonly string[]): Promise<void> {
  if (!asksConfirmation(opts)) return;
  for (const line of lines) process.stderr.write(`  ${line}\n`);
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await rl.question(`${question} [y/N] `)).trim().toLowerCase();
    if (answer !== "y" && answer !== "yes") throw new CliError("cancelled: nothing was changed", "pass --yes to act without the question", EXIT.usage);
  } finally {
    rl.close();
  }
}
