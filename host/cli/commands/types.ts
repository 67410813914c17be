import type { Command } from "commander";

/** Adds one command (or a small family) to the program. */
export type RegisterCommand = (program: Command) => void;
