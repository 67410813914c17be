/** Options shared by the commands that talk to a running server. */
import { existsSync } from "node:fs";
import path from "node:path";
import { Option, type Command } from "commander";
import { ApiClient } from "../client.js";
import { readTokenFile, TOKEN_FILE_NAME } from "../../api/token.js";

export const DEFAULT_URL = "http://127.0.0.1:8787";
/** `sluice serve`'s default data folder, where it writes a generated token. */
export const DEFAULT_DATA_DIR = ".sluice/data";

/** Adds --url, --token and --token-file (defaults from SLUICE_URL and SLUICE_TOKEN). */
export function remoteOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option("--url <url>", "server URL").env("SLUICE_URL").default(DEFAULT_URL))
    .addOption(new Option("--token <token>", "bearer token (prefer SLUICE_TOKEN or --token-file: the command line is visible to other users)").env("SLUICE_TOKEN"))
    .addOption(new Option("--token-file <file>", `file holding the bearer token (default: ${DEFAULT_DATA_DIR}/${TOKEN_FILE_NAME}, written by a local sluice serve)`));
}

/**
 * The token to send: --token / SLUICE_TOKEN, else --token-file, else the file a local
 * `sluice serve` wrote into its default data folder (so the README's local flow needs no
 * token at all).
 */
export function tokenOf(opts: { token?: string; tokenFile?: string }): string | undefined {
  if (opts.token) return opts.token;
  if (opts.tokenFile) return readTokenFile(opts.tokenFile);
  const local = path.join(DEFAULT_DATA_DIR, TOKEN_FILE_NAME);
  return existsSync(local) ? readTokenFile(local) : undefined;
}

export function clientOf(opts: { url: string; token?: string; tokenFile?: string }): ApiClient {
  const token = tokenOf(opts);
  return new ApiClient({ url: opts.url, ...(token ? { token } : {}) });
}
