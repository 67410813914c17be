/**
 * `sluice keys create/list/revoke`: the gateway's API keys (POST/GET/DELETE
 * /api/v1/gateway/keys), each tied to a space. The plaintext key is printed once, at
 * creation, alone on stdout (the note about it goes to stderr); the server keeps only its digest.
 */
import type { AnswerOf, BodyOf } from "../client.js";
import { CliError, emit, note, table } from "../output.js";
import { clientOf, readyClient, remoteOptions } from "./remote.js";
import type { DefineCommand } from "./types.js";

type KeyView = AnswerOf<"/api/v1/gateway/keys/{id}", "delete">;

export const keyCommands: DefineCommand = (group) => {
  remoteOptions(group.command("create"))
    .description("create a key for a space; the key is printed once")
    .requiredOption("--space <id>", "the space its calls run in (bindings matching spaces see it)")
    .option("--name <name>", "a label")
    .option("--scope <scope>", "gateway (the model gateway) or hooks (the coding agents' hook door only)", "gateway")
    .option("--json", "print JSON")
    .option("--wait-ms <ms>", "how long to wait for a server that is starting (and for the token it writes)", "30000")
    .action(async (opts: { space: string; name?: string; scope: string; json?: boolean; waitMs: string; url: string; token?: string; tokenFile?: string }) => {
      const waitMs = Number(opts.waitMs);
      if (!(Number.isInteger(waitMs) && waitMs >= 0)) throw new CliError(`--wait-ms must be a whole number of milliseconds, got ${JSON.stringify(opts.waitMs)}`);
      // Right after `sluice serve &` (as docs/agents-setup.md types it), the server may still be starting.
      const client = await readyClient(opts, waitMs);
      const created = await client.call<AnswerOf<"/api/v1/gateway/keys", "post", 201>>(client.api.POST("/api/v1/gateway/keys", { body: { space_id: opts.space, scope: opts.scope, ...(opts.name ? { name: opts.name } : {}) } as BodyOf<"/api/v1/gateway/keys", "post"> }));
      const keep = created.scope === "hooks" ? "e.g. in the variable sluice-hook reads (--key-env)" : "e.g. as OPENAI_API_KEY";
      emit(opts, created, () => [created.key]);
      if (!opts.json) note(`(${created.scope ?? "gateway"} key ${created.id} for space ${created.space_id}; shown only now: keep it, ${keep})`);
    });
  remoteOptions(group.command("list"))
    .description("list keys (never their secrets), revoked ones included")
    .option("--space <id>", "only this space's")
    .option("--json", "print JSON")
    .action(async (opts: { space?: string; json?: boolean; url: string; token?: string; tokenFile?: string }) => {
      const client = clientOf(opts);
      const { keys } = await client.call<AnswerOf<"/api/v1/gateway/keys">>(client.api.GET("/api/v1/gateway/keys", { params: { query: opts.space ? { space_id: opts.space } : {} } }));
      emit(opts, { keys }, () => table(["id", "space", "scope", "name", "prefix", "created", "revoked"], keys.map((k) => [k.id, k.space_id, k.scope ?? "gateway", k.name ?? "", k.prefix, k.created_at, k.revoked_at ?? ""])));
    });
  remoteOptions(group.command("revoke <id>"))
    .description("revoke a key: requests with it are refused from now on")
    .option("--json", "print JSON")
    .action(async (id: string, opts: { json?: boolean; url: string; token?: string; tokenFile?: string }) => {
      const client = clientOf(opts);
      const revoked = await client.call<KeyView>(client.api.DELETE("/api/v1/gateway/keys/{id}", { params: { path: { id } } }));
      emit(opts, revoked, () => [`revoked ${revoked.id} (space ${revoked.space_id}) at ${revoked.revoked_at}`]);
    });
};
