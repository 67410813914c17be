/**
 * `sluice tokens create|list|revoke|rotate`: the management API's tokens. Named tokens
 * (create, list, revoke) each have a role (viewer, deployer, admin) and are stored hashed
 * by the server; the token is printed once, at creation. `rotate` replaces the server's
 * own token, the built-in `admin`, in its data folder (`sluice token rotate` is kept as
 * its alias): `sluice serve` writes it on its first start and reuses it on every later one.
 */
import { Option, type Command } from "commander";
import { API_ROLES, ROLE_PURPOSE } from "../../keys/api-roles.js";
import type { AnswerOf } from "../client.js";
import { emit, note, table } from "../output.js";
import { clientOf, DEFAULT_DATA_DIR, remoteOptions } from "./remote.js";
import type { DefineCommand } from "./types.js";

type Remote = { url: string; token?: string; tokenFile?: string; json?: boolean };

function rotateCommand(group: Command): void {
  group.command("rotate")
    .description("replace <data-dir>/api-token (the built-in admin token) with a new one; a running sluice serve keeps the old one until it restarts")
    .addOption(new Option("--data-dir <dir>", "the server's data folder").env("SLUICE_DATA_DIR").default(DEFAULT_DATA_DIR))
    .option("--json", "print JSON")
    .action(async (opts: { dataDir: string; json?: boolean }) => {
      const { rotateTokenFile } = await import("../../api/token.js");
      const file = rotateTokenFile(opts.dataDir);
      emit(opts, { file }, () => [`wrote a new token to ${file} (mode 0600); restart sluice serve on ${opts.dataDir} to use it`]);
    });
}

export const tokensCommands: DefineCommand = (group) => {
  remoteOptions(group.command("create"))
    .description("create a named token; it is printed once")
    .requiredOption("--name <name>", "who or what uses it; the control audit names actions by it")
    .addOption(new Option("--role <role>", API_ROLES.map((r) => `${r}: ${ROLE_PURPOSE[r]}`).join("; ")).choices(API_ROLES).makeOptionMandatory())
    .option("--json", 'print JSON: {"id","name","role","token"}')
    .action(async (opts: Remote & { name: string; role: (typeof API_ROLES)[number] }) => {
      const client = clientOf(opts);
      const created = await client.call<AnswerOf<"/api/v1/tokens", "post", 201>>(client.api.POST("/api/v1/tokens", { body: { name: opts.name, role: opts.role } }));
      if (opts.json) return emit(opts, { id: created.id, name: created.name, role: created.role, token: created.token }, () => []);
      emit(opts, created, () => [created.token]);
      note(`(token ${created.id} "${created.name}", role ${created.role}; shown only now: keep it, e.g. as SLUICE_TOKEN)`);
    });
  remoteOptions(group.command("list"))
    .description("list tokens (never their secrets): admin (the server's own), then named ones, revoked included")
    .option("--json", "print JSON")
    .action(async (opts: Remote) => {
      const client = clientOf(opts);
      const { items } = await client.call<AnswerOf<"/api/v1/tokens">>(client.api.GET("/api/v1/tokens"));
      emit(opts, { items }, () => table(["ID", "NAME", "ROLE", "PREFIX", "CREATED", "REVOKED"], items.map((t) => [t.id, t.name, t.role, t.prefix ?? (t.builtin ? "(server's own)" : ""), t.created_at ?? "", t.revoked_at ?? ""])));
    });
  remoteOptions(group.command("revoke <id>"))
    .description("revoke a named token: requests with it are refused from now on")
    .option("--json", "print JSON")
    .action(async (id: string, opts: Remote) => {
      const client = clientOf(opts);
      const revoked = await client.call<AnswerOf<"/api/v1/tokens/{id}", "delete">>(client.api.DELETE("/api/v1/tokens/{id}", { params: { path: { id } } }));
      emit(opts, revoked, () => [`revoked ${revoked.id} ("${revoked.name}") at ${revoked.revoked_at}`]);
    });
  rotateCommand(group);
};

/** The name this command had before the group: scripts that rotate keep working. */
export const tokenAlias: DefineCommand = (group) => rotateCommand(group);
