/** `sluice upload [dir]`: build (unless --wasm) and upload the plugin to the server. */
import type { AnswerOf, ApiClient } from "../client.js";
import { emit, step } from "../output.js";
import { moduleFor, readPluginDir, type PluginDir } from "../plugin-dir.js";
import { clientOf, remoteOptions } from "./remote.js";
import type { DefineCommand } from "./types.js";

export const uploadCommand: DefineCommand = (cmd) => {
  remoteOptions(cmd)
    .option("--module <file>", "upload this module instead of building")
    .option("--json", "print JSON")
    .action(async (dir: string | undefined, opts: { module?: string; json?: boolean; url: string; token?: string }) => {
      const p = await readPluginDir(dir ?? ".");
      const wasm = await moduleFor(p, opts.module);
      const uploaded = await uploadPlugin(clientOf(opts), p, wasm);
      emit(opts, uploaded, () => [uploadedLine(uploaded)]);
    });
};

export type Uploaded = AnswerOf<"/api/v1/plugins", "post", 201>;

export function uploadPlugin(client: ApiClient, p: PluginDir, wasm: Uint8Array): Promise<Uploaded> {
  return step(`uploading ${p.manifest.id}@${p.manifest.version} (${wasm.byteLength} bytes)`, () =>
    client.call<Uploaded>(client.api.POST("/api/v1/plugins", { body: { manifest: p.manifestText, wasm_base64: Buffer.from(wasm).toString("base64") } })));
}

export function uploadedLine({ plugin, created }: { plugin: Pick<Uploaded["plugin"], "id" | "version" | "sha256">; created: boolean }): string {
  return `${created ? "uploaded" : "already uploaded (identical)"} ${plugin.id}@${plugin.version} sha256 ${plugin.sha256}`;
}
