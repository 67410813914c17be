/**
 * Every command of `sluice`, in help order. A new command is one file here plus one entry
 * in this list.
 */
import { agentCommands } from "./agents.js";
import { recordCommands } from "./records.js";
import { bindCommand } from "./bind.js";
import { demoCommand } from "./demo.js";
import { deployCommand } from "./deploy.js";
import { devCommand } from "./dev.js";
import { replayCommand } from "./replay.js";
import { quarantineCommands } from "./quarantine.js";
import { buildCommand } from "./build.js";
import { callCommand } from "./call.js";
import { keyCommands } from "./keys.js";
import { listCommand } from "./list.js";
import { newCommand } from "./new.js";
import { pipelineCommands } from "./pipeline.js";
import { releaseCommands } from "./releases.js";
import { serveCommand } from "./serve.js";
import { statusCommand } from "./status.js";
import { testCommand } from "./test.js";
import { tokenCommands } from "./token.js";
import type { RegisterCommand } from "./types.js";
import { uploadCommand } from "./upload.js";

export const COMMANDS: readonly RegisterCommand[] = [
  newCommand,
  buildCommand,
  testCommand,
  devCommand,
  uploadCommand,
  bindCommand,
  releaseCommands,
  deployCommand,
  callCommand,
  pipelineCommands,
  listCommand,
  statusCommand,
  serveCommand,
  tokenCommands,
  keyCommands,
  agentCommands,
  recordCommands,
  replayCommand,
  quarantineCommands,
  demoCommand,
];
