/**
 * Every command of `sluice`, in help order: one line each, its usage, what `sluice --help`
 * says of it, and the module that defines it (loaded only when it runs). A new command is
 * one file here plus one line in this list.
 */
import type { CommandEntry, DefineCommand } from "./types.js";

const command = (usage: string, description: string, load: () => Promise<DefineCommand>): CommandEntry => ({ usage, description, load });

export const COMMANDS: readonly CommandEntry[] = [
  command("new <name>", "scaffold a plugin in ./<name> (or --dir): AssemblyScript (its compiler installed there with npm install), Rust (a cargo crate) or C", async () => (await import("./new.js")).newCommand),
  command("build [dir]", "compile the plugin in dir (default .) to build/<id>.wasm", async () => (await import("./build.js")).buildCommand),
  command("test [dir]", "run the samples of the plugin in dir (default .); --remote runs them on the server's stored version", async () => (await import("./test.js")).testCommand),
  command("dev [dir]", "build and run the samples of the plugin in dir (default .), then again on every change to its sources, hook.yaml or samples, until Ctrl-C", async () => (await import("./dev.js")).devCommand),
  command("upload [dir]", "build the plugin in dir (default .) and upload it with its manifest", async () => (await import("./upload.js")).uploadCommand),
  command("bind <hook_ref>", "bind plugin-id@version to a point in the draft pipeline (publish to freeze it)", async () => (await import("./bind.js")).bindCommand),
  command("unbind <binding>", "remove a binding from the draft pipeline (published releases keep theirs; publish to release the change)", async () => (await import("./bind.js")).unbindCommand),
  command("binding", "draft bindings one at a time", async () => (await import("./bind.js")).bindingCommands),
  command("publish", "freeze the draft bindings into a new numbered release (nothing is created when nothing changed)", async () => (await import("./releases.js")).publishCommand),
  command("activate <revision>", "make a published revision the active one (running operations finish on theirs); on a terminal it shows what changes and asks first", async () => (await import("./releases.js")).activateCommand),
  command("rollback", "activate the revision that was active before the current one (or --to), and reset the draft to it; on a terminal it shows what changes and asks first", async () => (await import("./releases.js")).rollbackCommand),
  command("deploy [dir]", "check, build and test the plugin in dir (default .), then upload it, write the bindings of its hook.yaml, publish and activate, as one step on the server", async () => (await import("./deploy.js")).deployCommand),
  command("call <point>", "run one call through the server's live release with a test tool, model or embedder that echoes its input, and print what the hooks did: tool.before (--tool, --args), model.chat (--message), embedding (--text)", async () => (await import("./call.js")).callCommand),
  command("enable <binding>", "enable a binding; it keeps its place in the order (a new revision when it is in the active release)", async () => (await import("./pipeline.js")).enableCommand),
  command("disable <binding>", "disable a binding; it keeps its place in the order (a new revision when it is in the active release)", async () => (await import("./pipeline.js")).disableCommand),
  command("order <bindings...>", "move these bindings to the front, in this order", async () => (await import("./pipeline.js")).orderCommand),
  command("list [what]", "list plugins, bindings, releases, extensions (default: all but extensions)", async () => (await import("./list.js")).listCommand),
  command("status", "the revision this server serves, beside the active one in its database (they differ while it loads a new release, or when it cannot)", async () => (await import("./status.js")).statusCommand),
  command("serve", "serve the management API (plugins, bindings, releases) from a data directory; every option can also be set by its environment variable (the flag wins)", async () => (await import("./serve.js")).serveCommand),
  command("tokens", "API tokens: named ones with a role (viewer, deployer, admin), and the server's own (admin)", async () => (await import("./token.js")).tokensCommands),
  command("token", "alias of sluice tokens rotate", async () => (await import("./token.js")).tokenAlias),
  command("agents", "coding agents (Claude Code, Codex, Gemini CLI, Copilot CLI) whose hooks run through Sluice: setup, status", async () => (await import("./agents.js")).agentCommands),
  command("keys", "API keys of the OpenAI-compatible gateway (sluice serve --upstream), one space each", async () => (await import("./keys.js")).keyCommands),
  command("operations", "list operation records, newest first", async () => (await import("./records.js")).operationsCommand),
  command("operation <id>", "show one operation record (JSON; --skipped: the hooks it skipped, and why)", async () => (await import("./records.js")).operationCommand),
  command("resume <id>", "finish an operation's after processing on its stored real result (the current release; the tool or model is not called again); prints JSON", async () => (await import("./records.js")).resumeCommand),
  command("audit", "hook audit records (digests, no content), oldest first; with --control, the control actions (who changed what, newest first)", async () => (await import("./records.js")).auditCommand),
  command("replay <operation-id>", "re-run a recorded operation's hooks (server started with --payload-store) with the plugin in --dir (default .) or a stored --ref, and show what would change; never calls the tool or model", async () => (await import("./replay.js")).replayCommand),
  command("quarantine", "plugins quarantined after repeated failures", async () => (await import("./quarantine.js")).quarantineCommands),
  command("demo", "set up a registry with the reference plugins, start the management API, and run a scripted agent through the hooks", async () => (await import("./demo.js")).demoCommand),
];

/**
 * The command a command line runs (`sluice help <command>` included), or undefined for
 * `sluice`, `sluice --help` and `sluice --version`: the program's own options take no
 * value, so the first word that is not an option is the command.
 */
export function invokedCommand(args: readonly string[]): string | undefined {
  const words = args.filter((a) => !a.startsWith("-"));
  return words[0] === "help" ? words[1] : words[0];
}
