/** `sluice status`: the revision one server serves, beside the active revision in its database. */
import { EXIT } from "../exit-codes.js";
import { CliError, emit } from "../output.js";
import { clientOf, remoteOptions } from "./remote.js";
import type { DefineCommand } from "./types.js";
import type { AnswerOf } from "../client.js";

type Status = AnswerOf<"/api/v1/status">;

export function statusLines(s: Status): string[] {
  const lines = [`serving revision ${s.serving_revision} (active revision in the database: ${s.active_revision})`];
  if (s.loading_revision !== null) lines.push(`loading revision ${s.loading_revision}`);
  if (s.release_error) lines.push(`cannot load revision ${s.release_error.revision}: ${s.release_error.code}: ${s.release_error.message}`);
  return lines;
}

export const statusCommand: DefineCommand = (cmd) => {
  remoteOptions(cmd)
    .option("--json", "print the server's JSON")
    .option("--expect <revision>", "wait up to --wait-ms for the server to serve this revision; exit 3 if it does not")
    .option("--wait-ms <ms>", "how long --expect waits", "5000")
    .action(async (opts: { json?: boolean; expect?: string; waitMs: string; url: string; token?: string }) => {
      const client = clientOf(opts);
      const expected = opts.expect !== undefined ? Number(opts.expect) : undefined;
      const waitMs = Number(opts.waitMs);
      if (expected !== undefined && !(Number.isInteger(expected) && expected >= 0)) throw new CliError(`--expect must be a revision number, got ${JSON.stringify(opts.expect)}`, undefined, EXIT.usage);
      if (!(Number.isInteger(waitMs) && waitMs >= 0)) throw new CliError(`--wait-ms must be a whole number of milliseconds, got ${JSON.stringify(opts.waitMs)}`, undefined, EXIT.usage);
      const until = Date.now() + waitMs;
      let status = await client.call<Status>(client.api.GET("/api/v1/status"));
      while (expected !== undefined && status.serving_revision !== expected && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        status = await client.call<Status>(client.api.GET("/api/v1/status"));
      }
      emit(opts, status, () => statusLines(status));
      if (expected !== undefined && status.serving_revision !== expected) {
        throw new CliError(`${opts.url} serves revision ${status.serving_revision}, not ${expected}, after ${waitMs} ms`, status.release_error ? "it cannot load that release (see above)" : undefined, EXIT.refused);
      }
    });
};
