/** `sluice publish`, `sluice activate <revision>`, `sluice rollback`. */
import { print } from "../output.js";
import { clientOf, remoteOptions } from "./remote.js";
import type { RegisterCommand } from "./types.js";

interface Activation { activation: { revision: number; reason: string } }

export const releaseCommands: RegisterCommand = (program) => {
  remoteOptions(program.command("publish"))
    .description("freeze the draft bindings into a new numbered release")
    .option("--activate", "activate it at once")
    .option("--order-mode <mode>", "after-hook order: staged or symmetric")
    .option("--note <text>", "a note kept with the release")
    .action(async (opts: { activate?: boolean; orderMode?: string; note?: string; url: string; token?: string }) => {
      const { release, active_revision } = await clientOf(opts).request<{ release: { revision: number; bindings: unknown[] }; active_revision: number }>("POST", "/api/v1/releases", {
        ...(opts.activate ? { activate: true } : {}), ...(opts.orderMode ? { order_mode: opts.orderMode } : {}), ...(opts.note ? { note: opts.note } : {}),
      });
      print(`published revision ${release.revision} (${release.bindings.length} binding(s)); active revision: ${active_revision}`);
      if (!opts.activate) print(`activate it with: sluice activate ${release.revision}`);
    });

  remoteOptions(program.command("activate <revision>"))
    .description("make a published revision the active one (running operations finish on theirs)")
    .action(async (revision: string, opts: { url: string; token?: string }) => {
      const { activation } = await clientOf(opts).request<Activation>("POST", `/api/v1/releases/${encodeURIComponent(revision)}/activate`, {});
      print(`active revision: ${activation.revision}`);
    });

  remoteOptions(program.command("rollback"))
    .description("activate the revision that was active before the current one (or --to)")
    .option("--to <revision>", "the revision to activate")
    .action(async (opts: { to?: string; url: string; token?: string }) => {
      const { activation } = await clientOf(opts).request<Activation>("POST", "/api/v1/releases/rollback", opts.to ? { revision: Number(opts.to) } : {});
      print(`rolled back; active revision: ${activation.revision}`);
    });
};
