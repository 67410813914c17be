/** Options shared by the commands that talk to a running server, and where they find its token. */
import { existsSync } from "node:fs";
import path from "node:path";
import { Option, type Command } from "commander";
import { ApiClient, type TokenSource } from "../client.js";
import { readTokenFile, TOKEN_FILE_NAME } from "../../api/token.js";
import { EXIT } from "../exit-codes.js";

export const DEFAULT_URL = "http://127.0.0.1:8787";
/** `sluice serve`'s default data folder (relative to where it runs), where it keeps a generated token. */
export const DEFAULT_DATA_DIR = ".sluice/data";

/** Adds --url, --token and --token-file (defaults from SLUICE_URL, SLUICE_TOKEN and SLUICE_TOKEN_FILE). */
export function remoteOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option("--url <url>", "server URL").env("SLUICE_URL").default(DEFAULT_URL))
    .addOption(new Option("--token <token>", "bearer token (prefer SLUICE_TOKEN or --token-file: the command line is visible to other users)").env("SLUICE_TOKEN"))
    .addOption(new Option("--token-file <file>", `file holding the bearer token (default: <SLUICE_DATA_DIR>/${TOKEN_FILE_NAME}, else ${DEFAULT_DATA_DIR}/${TOKEN_FILE_NAME} here or in a parent folder, written by a local sluice serve)`).env("SLUICE_TOKEN_FILE"));
}

/**
 * The default token files, in the order they are tried: the data folder named by
 * SLUICE_DATA_DIR (the same variable `sluice serve` reads), else `.sluice/data/api-token`
 * in this folder and each parent (so a command run in a subfolder of where `sluice serve`
 * runs finds it).
 */
export function defaultTokenFiles(cwd = process.cwd(), env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.SLUICE_DATA_DIR) return [path.resolve(cwd, env.SLUICE_DATA_DIR, TOKEN_FILE_NAME)];
  const files: string[] = [];
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    files.push(path.join(dir, DEFAULT_DATA_DIR, TOKEN_FILE_NAME));
    if (path.dirname(dir) === dir) return files;
  }
}

/**
 * The token to send and where it came from: --token / SLUICE_TOKEN, else --token-file /
 * SLUICE_TOKEN_FILE, else the first default file that exists (so the README's local flow
 * needs no token at all). `looked` lists every place tried, for an auth failure to name.
 */
export function tokenOf(opts: { token?: string; tokenFile?: string }, env: NodeJS.ProcessEnv = process.env): TokenSource {
  if (opts.token) return { token: opts.token, from: env.SLUICE_TOKEN === opts.token ? "SLUICE_TOKEN" : "--token", looked: [] };
  if (opts.tokenFile) return { token: readTokenFile(opts.tokenFile), from: `${env.SLUICE_TOKEN_FILE === opts.tokenFile ? "SLUICE_TOKEN_FILE" : "--token-file"} ${opts.tokenFile}`, looked: [] };
  const files = defaultTokenFiles(process.cwd(), env);
  const found = files.find((f) => existsSync(f));
  if (found) return { token: readTokenFile(found), from: found, looked: [] };
  return { from: "nowhere", looked: ["SLUICE_TOKEN", "SLUICE_TOKEN_FILE", `${files[0]}${files.length > 1 ? " (and .sluice/data/api-token in every parent folder)" : ""}`] };
}

export function clientOf(opts: { url: string; token?: string; tokenFile?: string }): ApiClient {
  return new ApiClient({ url: opts.url, tokenSource: tokenOf(opts) });
}

/**
 * A client whose server answers with its token, checked before a command does work that
 * takes long (building, running samples). A server that is starting (`sluice dev &` just
 * run) is waited for, up to `waitMs`: until it listens, and until the token it writes
 * appears; a token the server refuses fails at once.
 */
export async function readyClient(opts: { url: string; token?: string; tokenFile?: string }, waitMs: number): Promise<ApiClient> {
  const until = Date.now() + waitMs;
  let said = false;
  for (;;) {
    const client = clientOf(opts);
    const source = tokenOf(opts);
    try {
      await client.call(client.api.GET("/api/v1/status"));
      return client;
    } catch (err) {
      const unreachable = (err as { exitCode?: number }).exitCode === EXIT.unreachable;
      const noTokenYet = source.token === undefined && (err as { code?: string }).code === "UNAUTHORIZED";
      if (!(unreachable || noTokenYet) || Date.now() >= until) throw err;
      if (!said) {
        process.stderr.write(`waiting up to ${Math.round(waitMs / 1000)} s for ${unreachable ? `a server at ${opts.url}` : "its token"} (a \`sluice dev\` or \`sluice serve\` starting; --wait-ms changes the wait)\n`);
        said = true;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
