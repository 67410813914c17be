/** `sluice quarantine list|lift`: see and lift quarantined plugins on a running server. */
import { print } from "../output.js";
import { clientOf, remoteOptions } from "./remote.js";
import type { RegisterCommand } from "./types.js";

export const quarantineCommands: RegisterCommand = (program) => {
  const q = program.command("quarantine").description("plugins quarantined after repeated failures");
  remoteOptions(q.command("list").description("list quarantined plugins"))
    .action(async (opts: { url: string; token?: string }) => {
      const { items } = await clientOf(opts).request<{ items: { ref: string; since?: number; lastError?: { code: string } }[] }>("GET", "/api/v1/quarantine");
      if (items.length === 0) print("no plugin is quarantined");
      for (const item of items) print(`${item.ref}  last error ${item.lastError?.code ?? "?"}`);
    });
  remoteOptions(q.command("lift <ref>").description("lift the quarantine of id@version"))
    .action(async (ref: string, opts: { url: string; token?: string }) => {
      await clientOf(opts).request("DELETE", `/api/v1/quarantine/${encodeURIComponent(ref)}`);
      print(`lifted ${ref}`);
    });
};
