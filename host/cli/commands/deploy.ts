/**
 * `sluice deploy [dir]`: build, upload, bind (from hook.yaml's `bindings` section),
 * publish and activate, in one command: the last step from an empty folder to a live hook.
 * A binding that already exists in the draft is replaced (it keeps its place), so
 * deploying a new version moves its bindings to it.
 */
import { isSluiceError } from "../../errors/sluice-error.js";
import type { ApiClient, BodyOf } from "../client.js";
import { CliError, emit } from "../output.js";
import { moduleFor, readPluginDir } from "../plugin-dir.js";
import { publishDraft, publishedLines } from "./releases.js";
import { clientOf, remoteOptions } from "./remote.js";
import type { RegisterCommand } from "./types.js";
import { uploadedLine, uploadPlugin } from "./upload.js";

export const deployCommand: RegisterCommand = (program) => {
  remoteOptions(program.command("deploy [dir]"))
    .description("build and upload the plugin in dir (default .), write the bindings of its hook.yaml, publish and activate")
    .option("--module <file>", "upload this module instead of building")
    .option("--no-activate", "publish without activating")
    .option("--note <text>", "a note kept with the release")
    .option("--json", "print JSON")
    .action(async (dir: string | undefined, opts: { module?: string; activate: boolean; note?: string; json?: boolean; url: string; token?: string }) => {
      const p = await readPluginDir(dir ?? ".");
      const bindings = p.manifest.bindings ?? [];
      if (bindings.length === 0) throw new CliError(`${p.dir}/hook.yaml has no bindings section, so deploy has nothing to bind`, "add one, e.g.\n    bindings:\n      - point: tool.before\n        config: { max_limit: 100 }\n  or bind by hand with `sluice upload`, `sluice bind` and `sluice publish --activate`");
      const client = clientOf(opts);
      const wasm = await moduleFor(p, opts.module);
      const uploaded = await uploadPlugin(client, p, wasm);
      const ref = `${p.manifest.id}@${p.manifest.version}`;
      const bound: { id: string; point: string; created: boolean }[] = [];
      for (const b of bindings) {
        const id = b.id ?? `${p.manifest.id}-${b.point.replace(/\./g, "-")}`;
        bound.push({ id, point: b.point, created: await writeBinding(client, { ...b, id, hook_ref: ref }) });
      }
      const published = await publishDraft(client, { ...(opts.activate ? { activate: true } : {}), ...(opts.note ? { note: opts.note } : {}) });
      emit(opts, { plugin: uploaded.plugin, uploaded: uploaded.created, bindings: bound, release: published.release, created: published.created, active_revision: published.active_revision }, () => [
        uploadedLine(uploaded),
        ...bound.map((b) => `${b.created ? "bound" : "rebound"} ${b.id}: ${ref} at ${b.point}`),
        ...publishedLines(published, opts.activate),
      ]);
    });
};

/** Creates the binding, or replaces the draft binding with that id; true when it was created. */
async function writeBinding(client: ApiClient, body: Record<string, unknown> & { id: string }): Promise<boolean> {
  try {
    await client.call(client.api.GET("/api/v1/bindings/{id}", { params: { path: { id: body.id } } }));
  } catch (err) {
    if (!isSluiceError(err) || err.code !== "BINDING_NOT_FOUND") throw err;
    await client.call(client.api.POST("/api/v1/bindings", { body: body as BodyOf<"/api/v1/bindings", "post"> }));
    return true;
  }
  await client.call(client.api.PUT("/api/v1/bindings/{id}", { params: { path: { id: body.id } }, body: body as BodyOf<"/api/v1/bindings/{id}", "put"> }));
  return false;
}
