#!/usr/bin/env node
/**
 * `sluice-hook <agent> <event> --url <server> --key-env <VAR> [--on-error block|allow] [--timeout-ms N]`:
 * a coding agent's command hook. It reads the event from stdin, posts it to the door
 * (`POST <server>/v1/agent-hooks/<agent>/<event>`, the key from the variable VAR), prints
 * the reply and exits 0. When the server cannot be reached, answers late or answers
 * something else than the door's 200, `--on-error` decides: `block` (the default before a
 * tool and at a prompt) answers the agent's block with a message it shows (exit 2 with the
 * message on stderr where the agent reads that as a block, the agent's block JSON where it
 * does not); `allow` (the default for events that only observe) answers nothing.
 * It loads nothing of the CLI: Node's http client and the mapping table only (the reply formats when it must answer Copilot CLI's block itself).
 */
import { request as httpRequest } from "node:http";
import { isAgent, type Agent } from "./agents.js";
import { AGENT_TABLE, BLOCKING_KINDS, EVENT_NAME, kindOf } from "./mapping.js";

const USAGE = "usage: sluice-hook <claude-code|codex|gemini-cli|copilot-cli> <event> --url <server> --key-env <VAR> [--on-error block|allow] [--timeout-ms N]";
/** Read at most this much of stdin: the door refuses more anyway. */
const STDIN_MAX = 1024 * 1024 + 1;

interface Args { agent: Agent; event: string; url: URL; keyEnv: string; onError: "block" | "allow"; timeoutMs: number }

function fail(message: string): never {
  process.stderr.write(`sluice-hook: ${message}\n${USAGE}\n`);
  // A hook that cannot even start blocks: exit 2 is every agent's "blocking error".
  process.exit(2);
}

function parse(argv: string[]): Args {
  const [agent, event, ...rest] = argv;
  if (agent === undefined || !isAgent(agent)) fail(`unknown agent ${JSON.stringify(agent ?? "")}`);
  if (event === undefined || !EVENT_NAME.test(event)) fail(`invalid event ${JSON.stringify(event ?? "")}`);
  const opts = new Map<string, string>();
  for (let i = 0; i < rest.length; i += 2) {
    const name = rest[i]!;
    const value = rest[i + 1];
    if (!["--url", "--key-env", "--on-error", "--timeout-ms"].includes(name) || value === undefined) fail(`unexpected argument ${JSON.stringify(name)}`);
    opts.set(name, value);
  }
  const urlText = opts.get("--url") ?? fail("--url is required");
  let url: URL;
  try { url = new URL(urlText); } catch { fail(`--url ${JSON.stringify(urlText)} is not a URL`); }
  if (url.protocol !== "http:" && url.protocol !== "https:") fail("--url must be http: or https:");
  const keyEnv = opts.get("--key-env") ?? fail("--key-env is required");
  const blocking = BLOCKING_KINDS.has(kindOf(agent, event));
  const onError = opts.get("--on-error") ?? (blocking ? "block" : "allow");
  if (onError !== "block" && onError !== "allow") fail("--on-error must be block or allow");
  const timeoutMs = Number(opts.get("--timeout-ms") ?? (AGENT_TABLE[agent].abilities.timeoutS - 5) * 1000);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) fail("--timeout-ms must be a positive integer");
  return { agent, event, url, keyEnv, onError, timeoutMs };
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
      method: "POST", path: `${base}/v1/agent-hooks/${args.agent}/${args.event}`, timeout: args.timeoutMs,
      headers: { "content-type": "application/json", "content-length": String(body.length), authorization: `Bearer ${key}` },
    }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => { text += d; });
      res.on("end", () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`the server answered HTTP ${res.statusCode}`))));
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error(`no answer within ${args.timeoutMs} ms`)));
    req.on("error", reject);
    req.end(body);
  });
}

async function onError(args: Args, why: string): Promise<void> {
  if (args.onError === "allow") {
    process.stderr.write(`sluice-hook: ${why}; allowed (--on-error allow)\n`);
    process.stdout.write("{}\n");
    return;
  }
  const reason = `Sluice could not check this ${args.event} event (${why}); blocked by sluice-hook --on-error block`;
  if (args.agent === "copilot-cli") {
    // Loaded only here: most events never need the reply formats.
    const { refusal } = await import("./replies.js");
    process.stdout.write(`${JSON.stringify(refusal(args.agent, args.event, kindOf(args.agent, args.event), reason))}\n`);
    return;
  }
  process.stderr.write(`${reason}\n`);
  process.exitCode = 2;
}

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  const key = process.env[args.keyEnv];
  const body = await readStdin();
  if (key === undefined || key === "") return onError(args, `the variable ${args.keyEnv} holding the hooks key is not set`);
  let text: string;
  try {
    text = await post(args, key, body);
    JSON.parse(text);
  } catch (err) {
    return onError(args, `${args.url.origin}: ${(err as Error).message}`);
  }
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}

main().catch((err: unknown) => fail((err as Error)?.message ?? String(err)));
