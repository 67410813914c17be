#!/usr/bin/env node
/**
 * `sluice-hook <agent> <event> --url <server> --key-env <VAR> [--on-error block|allow] [--timeout-ms N]`:
 * a coding agent's command hook. It reads the event from stdin, posts it to the door
 * (`POST <server>/v1/agent-hooks/<agent>/<event>`, the key from the variable VAR), prints
 * the reply and exits 0. When the server cannot be reached, answers late or answers
 * something else than the door's 200, `--on-error` decides: `block` (the default before a
 * tool and at a prompt) answers the agent's block with a message it shows (exit 2 with the
 * message on stderr where the agent reads that as a block, the agent's block JSON where it
 * does not); `allow` (the default for events that only observe) answers nothing. A command
 * line it cannot run blocks where a block is the default, and exits 1 elsewhere.
 * It loads nothing of the CLI: Node's http client and the mapping table only (the reply formats when it must answer Copilot CLI's block itself).
 */
import { request as httpRequest } from "node:http";
import { isAgent, type Agent } from "./agents.js";
import { AGENT_TABLE, BLOCKING_KINDS, EVENT_NAME, kindOf, unservedEvent } from "./mapping.js";

const USAGE = "usage: sluice-hook <claude-code|codex|gemini-cli|copilot-cli> <event> --url <server> --key-env <VAR> [--on-error block|allow] [--timeout-ms N]";
/** Read at most this much of stdin: the door refuses more anyway. */
const STDIN_MAX = 1024 * 1024 + 1;

interface Args { agent: Agent; event: string; url: URL; keyEnv: string; onError: "block" | "allow"; timeoutMs: number }

/** A command line sluice-hook cannot run; the agent and event when they were read. */
class Usage { constructor(readonly message: string, readonly route?: { agent: Agent; event: string }) {} }

function parse(argv: string[]): Args | Usage {
  const [agent, event, ...rest] = argv;
  if (agent === undefined || !isAgent(agent)) return new Usage(`unknown agent ${JSON.stringify(agent ?? "")}`);
  if (event === undefined || !EVENT_NAME.test(event)) return new Usage(`invalid event ${JSON.stringify(event ?? "")}`);
  const bad = (message: string) => new Usage(message, { agent, event });
  const instead = unservedEvent(agent, event);
  if (instead !== null) return bad(`${event} is a name of ${agent}'s event Sluice does not read: configure the hook on ${instead}`);
  const opts = new Map<string, string>();
  for (let i = 0; i < rest.length; i += 2) {
    const name = rest[i]!;
    const value = rest[i + 1];
    if (!["--url", "--key-env", "--on-error", "--timeout-ms"].includes(name) || value === undefined) return bad(`unexpected argument ${JSON.stringify(name)}`);
    opts.set(name, value);
  }
  const urlText = opts.get("--url");
  if (urlText === undefined) return bad("--url is required");
  let url: URL;
  try { url = new URL(urlText); } catch { return bad(`--url ${JSON.stringify(urlText)} is not a URL`); }
  if (url.protocol !== "http:" && url.protocol !== "https:") return bad("--url must be http: or https:");
  const keyEnv = opts.get("--key-env");
  if (keyEnv === undefined) return bad("--key-env is required");
  const blocking = BLOCKING_KINDS.has(kindOf(agent, event));
  const onError = opts.get("--on-error") ?? (blocking ? "block" : "allow");
  if (onError !== "block" && onError !== "allow") return bad("--on-error must be block or allow");
  const timeoutMs = Number(opts.get("--timeout-ms") ?? (AGENT_TABLE[agent].abilities.timeoutS - 5) * 1000);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) return bad("--timeout-ms must be a positive integer");
  return { agent, event, url, keyEnv, onError, timeoutMs };
}

/**
 * A hook that cannot run: before a tool or at a prompt it blocks (the agent's block, as on
 * an unreachable server); elsewhere it exits 1, an error every agent reports and none reads
 * as a block (exit 2 on Claude Code's Stop would keep the agent working). Without a known
 * agent and event, exit 2: every agent's blocking error.
 */
async function misconfigured(usage: Usage): Promise<void> {
  const { route } = usage;
  if (route && BLOCKING_KINDS.has(kindOf(route.agent, route.event))) return block(route.agent, route.event, `sluice-hook cannot run (${usage.message}); blocked until its command line is fixed`, `${USAGE}\n`);
  process.stderr.write(`sluice-hook: ${usage.message}\n${USAGE}\n`);
  process.exitCode = route ? 1 : 2;
}

function readStdin(): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    process.stdin.on("data", (c: Buffer) => { if (size < STDIN_MAX) { chunks.push(c); size += c.length; } });
    process.stdin.on("end", () => resolve(Buffer.concat(chunks)));
    process.stdin.on("error", reject);
  });
}

async function post(args: Args, key: string, body: Buffer): Promise<string> {
  const base = args.url.pathname.replace(/\/+$/, "");
  const request = args.url.protocol === "https:" ? (await import("node:https")).request : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(args.url, {
      method: "POST", path: `${base}/v1/agent-hooks/${args.agent}/${args.event}`,
      headers: { "content-type": "application/json", "content-length": String(body.length), authorization: `Bearer ${key}` },
    }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => { text += d; });
      res.on("end", () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`the server answered HTTP ${res.statusCode}`))));
      res.on("error", reject);
    });
    // The whole exchange, not the socket's idleness: an answer trickling in byte by byte is as late as none.
    const deadline = setTimeout(() => req.destroy(new Error(`no answer within ${args.timeoutMs} ms`)), args.timeoutMs);
    req.on("close", () => clearTimeout(deadline));
    req.on("error", reject);
    req.end(body);
  });
}

/** The agent's block with `reason`: its deny JSON for Copilot CLI (which reads stdout), else exit 2 with the reason on stderr. */
async function block(agent: Agent, event: string, reason: string, more = ""): Promise<void> {
  if (agent === "copilot-cli") {
    // Loaded only here: most events never need the reply formats.
    const { refusal } = await import("./replies.js");
    process.stdout.write(`${JSON.stringify(refusal(agent, event, kindOf(agent, event), reason))}\n`);
    if (more) process.stderr.write(more);
    return;
  }
  process.stderr.write(`${reason}\n${more}`);
  process.exitCode = 2;
}

async function onError(args: Args, why: string): Promise<void> {
  if (args.onError === "allow") {
    process.stderr.write(`sluice-hook: ${why}; allowed (--on-error allow)\n`);
    process.stdout.write("{}\n");
    return;
  }
  return block(args.agent, args.event, `Sluice could not check this ${args.event} event (${why}); blocked by sluice-hook --on-error block`);
}

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  if (args instanceof Usage) return misconfigured(args);
  const key = process.env[args.keyEnv];
  let body: Buffer;
  try { body = await readStdin(); } catch (err) { return onError(args, `stdin could not be read: ${(err as Error).message}`); }
  if (key === undefined || key === "") return onError(args, `the variable ${args.keyEnv} holding the hooks key is not set`);
  let text: string;
  try {
    text = await post(args, key, body);
    const answer: unknown = JSON.parse(text);
    // Every answer of the door is an object: anything else comes from some other server.
    if (typeof answer !== "object" || answer === null || Array.isArray(answer)) throw new Error("the answer is not a JSON object");
  } catch (err) {
    return onError(args, `${args.url.origin}: ${(err as Error).message}`);
  }
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`sluice-hook: ${(err as Error)?.message ?? String(err)}\n`);
  process.exitCode = 2;
});
