/** `sluice list [what]`: plugins, bindings, releases or extensions, as a table or --json. */
import { CliError, print, printJson } from "../output.js";
import { clientOf, remoteOptions } from "./remote.js";
import type { DefineCommand } from "./types.js";

type Row = Record<string, unknown>;

/** Where a version was built from, when it came from Git: `  from <repository> at <commit>[ (<path>)]`. */
function sourceOf(source: unknown): string {
  if (typeof source !== "object" || source === null) return "";
  const s = source as { repository: string; commit: string; path?: string };
  return `  from ${s.repository} at ${s.commit.slice(0, 12)}${s.path ? ` (${s.path})` : ""}`;
}

const VIEWS: Record<string, { path: "/api/v1/plugins" | "/api/v1/bindings" | "/api/v1/releases" | "/api/v1/pipeline/extensions"; key: string; row: (r: Row) => string }> = {
  plugins: { path: "/api/v1/plugins", key: "items", row: (r) => `${r.id}@${r.version}  sha256 ${String(r.sha256).slice(0, 12)}  ${r.size} bytes  ${r.created_at}${sourceOf(r.source)}` },
  bindings: { path: "/api/v1/bindings", key: "items", row: (r) => `${r.position}. ${r.id}  ${r.hook_ref} at ${r.point}  priority ${r.priority}  ${r.enabled ? "enabled" : "disabled"}` },
  releases: { path: "/api/v1/releases", key: "items", row: (r) => `revision ${r.revision}  ${(r.bindings as unknown[]).length} binding(s)  order mode ${r.order_mode}  ${r.created_at}${r.note ? `  ${r.note}` : ""}` },
  extensions: { path: "/api/v1/pipeline/extensions", key: "items", row: (r) => `${r.order}. ${r.extension_id}  ${r.hook_ref}  ${r.node_id} (${r.hook_type})  ${r.enabled ? "enabled" : "disabled"}` },
};

export const listCommand: DefineCommand = (cmd) => {
  remoteOptions(cmd)
    .option("--json", "print the server's JSON")
    .action(async (what: string | undefined, opts: { json?: boolean; url: string; token?: string }) => {
      if (what !== undefined && !(what in VIEWS)) throw new CliError(`cannot list "${what}"`, `use one of: ${Object.keys(VIEWS).join(", ")}`);
      const client = clientOf(opts);
      for (const name of what ? [what] : ["plugins", "bindings", "releases"]) {
        const view = VIEWS[name]!;
        const body = await client.call<Row>(client.api.GET(view.path));
        if (opts.json) { printJson(body); continue; }
        const items = body[view.key] as Row[];
        const extra = "active_revision" in body ? ` (active revision ${body.active_revision})` : "revision" in body ? ` (revision ${body.revision}, sdk interface ${body.sdk_interface_version})` : "";
        print(`${name}${extra}:`);
        if (items.length === 0) print("  (none)");
        for (const item of items) print(`  ${view.row(item)}`);
      }
    });
};
