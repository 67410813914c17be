/** `sluice quarantine list|lift`: see and lift quarantined plugins on a running server. */
import type { AnswerOf } from "../client.js";
import { emit, table } from "../output.js";
import { clientOf, remoteOptions } from "./remote.js";
import type { DefineCommand } from "./types.js";

export const quarantineCommands: DefineCommand = (q) => {
  remoteOptions(q.command("list").description("list quarantined plugins"))
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean; url: string; token?: string }) => {
      const { items } = await clientOf(opts).call<AnswerOf<"/api/v1/quarantine">>(clientOf(opts).api.GET("/api/v1/quarantine"));
      emit(opts, items, () => items.length === 0 ? ["no plugin is quarantined"]
        : table(["PLUGIN", "SINCE", "FAILURES", "LAST ERROR"], items.map((i) => [i.ref, new Date(i.since).toISOString(), String(i.failures), i.lastError.code])));
    });
  remoteOptions(q.command("lift <ref>").description("lift the quarantine of id@version"))
    .option("--json", "print JSON")
    .action(async (ref: string, opts: { json?: boolean; url: string; token?: string }) => {
      await clientOf(opts).call(clientOf(opts).api.DELETE("/api/v1/quarantine/{ref}", { params: { path: { ref } } }));
      emit(opts, { lifted: ref }, () => [`lifted ${ref}`]);
    });
};
