/** `sluice publish`, `sluice activate <revision>`, `sluice rollback`. */
import type { AnswerOf, ApiClient, BodyOf } from "../client.js";
import { emit, warn } from "../output.js";
import { clientOf, remoteOptions } from "./remote.js";
import { confirmOnTerminal, asksConfirmation } from "../confirm.js";
import { activatePreview, publishPreview, rollbackPreview } from "../release-preview.js";
import type { DefineCommand } from "./types.js";

type Activation = AnswerOf<"/api/v1/releases/{revision}/activate", "post">;
export type Published = AnswerOf<"/api/v1/releases", "post", 201>;

/**
 * Publishes the draft: warns first when it is empty (activating it turns every hook off);
 * a draft identical to the latest revision creates nothing, and the server says so.
 */
export async function publishDraft(client: ApiClient, body: { activate?: boolean; order_mode?: string; note?: string }): Promise<Published> {
  const { items } = await client.call<{ items: unknown[] }>(client.api.GET("/api/v1/bindings"));
  if (items.length === 0) warn("the draft has no bindings: this release runs no hook (activating it turns every hook off)");
  return client.call<Published>(client.api.POST("/api/v1/releases", { body: body as BodyOf<"/api/v1/releases", "post"> }));
}

export function publishedLines(p: Published, activate: boolean): string[] {
  if (!p.created) return [`nothing changed since revision ${p.release.revision}; no release created; active revision: ${p.active_revision}`];
  return [
    `published revision ${p.release.revision} (${p.release.bindings.length} binding(s)); active revision: ${p.active_revision}`,
    ...(activate ? [] : [`activate it with: sluice activate ${p.release.revision}`]),
  ];
}

export const publishCommand: DefineCommand = (cmd) => {
  remoteOptions(cmd)
    .option("--activate", "activate it at once")
    .option("--order-mode <mode>", "after-hook order: staged or symmetric")
    .option("--note <text>", "a note kept with the release")
    .option("--yes", "with --activate: do not ask for confirmation on a terminal")
    .option("--json", "print JSON")
    .action(async (opts: { activate?: boolean; orderMode?: string; note?: string; yes?: boolean; json?: boolean; url: string; token?: string }) => {
      if (opts.activate && asksConfirmation(opts)) await confirmOnTerminal(opts, "Publish and activate the draft?", await publishPreview(clientOf(opts)));
      const published = await publishDraft(clientOf(opts), {
        ...(opts.activate ? { activate: true } : {}), ...(opts.orderMode ? { order_mode: opts.orderMode } : {}), ...(opts.note ? { note: opts.note } : {}),
      });
      emit(opts, published, () => publishedLines(published, opts.activate === true));
    });
};

export const activateCommand: DefineCommand = (cmd) => {
  remoteOptions(cmd)
    .option("--yes", "do not ask for confirmation")
    .option("--json", "print JSON")
    .action(async (revision: string, opts: { yes?: boolean; json?: boolean; url: string; token?: string }) => {
      if (asksConfirmation(opts)) await confirmOnTerminal(opts, `Activate revision ${revision}?`, (await activatePreview(clientOf(opts), Number(revision))) ?? []);
      const body = await clientOf(opts).call<Activation>(clientOf(opts).api.POST("/api/v1/releases/{revision}/activate", { params: { path: { revision } } }));
      emit(opts, body, () => [`active revision: ${body.activation.revision}`]);
    });
};

export const rollbackCommand: DefineCommand = (cmd) => {
  remoteOptions(cmd)
    .option("--to <revision>", "the revision to activate")
    .option("--yes", "do not ask for confirmation")
    .option("--json", "print JSON")
    .action(async (opts: { to?: string; yes?: boolean; json?: boolean; url: string; token?: string }) => {
      if (asksConfirmation(opts)) await confirmOnTerminal(opts, "Roll back?", (await rollbackPreview(clientOf(opts), opts.to ? Number(opts.to) : undefined)) ?? []);
      const body = await clientOf(opts).call<Activation>(clientOf(opts).api.POST("/api/v1/releases/rollback", { body: opts.to ? { revision: Number(opts.to) } : {} }));
      emit(opts, body, () => [`rolled back; active revision: ${body.activation.revision}; the draft is reset to it`]);
    });
};
