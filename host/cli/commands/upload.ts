/** `sluice upload [dir]`: build (unless --wasm) and upload the plugin to the server. */
import { print, step } from "../output.js";
import { moduleFor, readPluginDir } from "../plugin-dir.js";
import { clientOf, remoteOptions } from "./remote.js";
import type { RegisterCommand } from "./types.js";

export const uploadCommand: RegisterCommand = (program) => {
  remoteOptions(program.command("upload [dir]"))
    .description("build the plugin in dir (default .) and upload it with its manifest")
    .option("--module <file>", "upload this module instead of building")
    .action(async (dir: string | undefined, opts: { module?: string; url: string; token?: string }) => {
      const p = await readPluginDir(dir ?? ".");
      const wasm = await moduleFor(p, opts.module);
      const { plugin, created } = await step(`uploading ${p.manifest.id}@${p.manifest.version} (${wasm.byteLength} bytes)`, () =>
        clientOf(opts).request<{ plugin: { id: string; version: string; sha256: string }; created: boolean }>("POST", "/api/v1/plugins", {
          manifest: p.manifestText,
          wasm_base64: Buffer.from(wasm).toString("base64"),
        }));
      print(`${created ? "uploaded" : "already uploaded (identical)"} ${plugin.id}@${plugin.version} sha256 ${plugin.sha256}`);
    });
};
