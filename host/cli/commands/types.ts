import type { Command } from "commander";

/** Adds a command's options, subcommands and action to the command `main.ts` made for it. */
export type DefineCommand = (cmd: Command) => void;

/**
 * One command as `sluice --help` lists it, and where its implementation is. `main.ts` makes
 * every command from its usage and description (all that the list of commands shows) and
 * loads only the one being run, so a command's dependencies (Fastify, pg, the compiler)
 * are paid for by that command alone.
 */
export interface CommandEntry {
  /** The name and arguments, as commander takes them: "bind <hook_ref>". */
  usage: string;
  description: string;
  /** Its options and action; imported only when it runs or its help is asked for. */
  load: () => Promise<DefineCommand>;
}
