/** Options shared by the commands that talk to a running server. */
import { Option, type Command } from "commander";
import { ApiClient } from "../client.js";

export const DEFAULT_URL = "http://127.0.0.1:8787";

/** Adds --url and --token (defaults from SLUICE_URL and SLUICE_TOKEN). */
export function remoteOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option("--url <url>", "server URL").env("SLUICE_URL").default(DEFAULT_URL))
    .addOption(new Option("--token <token>", "bearer token").env("SLUICE_TOKEN"));
}

export function clientOf(opts: { url: string; token?: string }): ApiClient {
  return new ApiClient({ url: opts.url, ...(opts.token ? { token: opts.token } : {}) });
}
