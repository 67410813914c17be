/** `sluice enable|disable <binding>` and `sluice order <ids...>`: the extension view's control-plane operations (docs/api-and-gateway.md). */
import type { Command } from "commander";
import type { AnswerOf, BodyOf } from "../client.js";
import { emit } from "../output.js";
import { clientOf, remoteOptions } from "./remote.js";
import { confirmOnTerminal } from "../confirm.js";
import type { DefineCommand } from "./types.js";

function switchCommand(cmd: Command, enabled: boolean): void {
  remoteOptions(cmd)
    .option("--yes", "do not ask for confirmation on a terminal")
    .option("--json", "print JSON")
    .action(async (binding: string, opts: { yes?: boolean; json?: boolean; url: string; token?: string }) => {
      await confirmOnTerminal(opts, `${enabled ? "Enable" : "Disable"} ${binding}? When the active release holds it, a new revision is activated at once.`, [`${binding}: enabled ${!enabled} → ${enabled}`]);
      const change = await clientOf(opts).call<AnswerOf<"/api/v1/pipeline/extensions/{id}", "patch">>(clientOf(opts).api.PATCH("/api/v1/pipeline/extensions/{id}", { params: { path: { id: binding } }, body: { enabled } }));
      emit(opts, change, () => [`${enabled ? "enabled" : "disabled"} ${binding}; active revision: ${change.revision}${change.created ? " (new)" : ""}`]);
    });
}

export const enableCommand: DefineCommand = (cmd) => switchCommand(cmd, true);
export const disableCommand: DefineCommand = (cmd) => switchCommand(cmd, false);

export const orderCommand: DefineCommand = (cmd) => {
  remoteOptions(cmd)
    .option("--order-mode <mode>", "after-hook order: staged or symmetric")
    .option("--json", "print JSON")
    .action(async (bindings: string[], opts: { orderMode?: string; json?: boolean; url: string; token?: string }) => {
      const change = await clientOf(opts).call<AnswerOf<"/api/v1/pipeline/order", "put">>(clientOf(opts).api.PUT("/api/v1/pipeline/order", { body: { order: bindings, ...(opts.orderMode ? { order_mode: opts.orderMode } : {}) } as BodyOf<"/api/v1/pipeline/order", "put"> }));
      emit(opts, change, () => [`reordered; active revision: ${change.revision}`]);
    });
};
