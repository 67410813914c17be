/**
 * The files of a new plugin: a working tool.before hook (clamps a `limit` argument), its
 * manifest and two samples, so `sluice build` and `sluice test` pass before any edit.
 */
export function scaffoldFiles(id: string, compilerVersion: string): Record<string, string> {
  return {
    // The compiler pinned exactly: sluice builds with the version it was tested with.
    "package.json": `${JSON.stringify({ name: id, version: "0.1.0", private: true, description: "A Sluice hook plugin (see hook.yaml)", devDependencies: { assemblyscript: compilerVersion } }, null, 2)}\n`,
    "hook.yaml": `# The plugin manifest: see abi/README.md and guest-sdk/README.md.
id: ${id}
version: 0.1.0
abi: "1.0"
entry: assembly/index.ts
description: Clamps the limit argument of a tool call to a maximum.
points:
  tool.before:
    read: [/tool_id, /name, /arguments]   # the host sends only these fields
    write: [/arguments]                   # and refuses patches outside these
config_schema:
  type: object
  additionalProperties: false
  properties:
    max_limit: { type: integer, minimum: 1, default: 100 }   # the hook uses 100 when a binding gives none
capabilities: []
limits: { memory_mb: 16, timeout_ms: 50, input_kb: 256, output_kb: 64 }
failure_policy: fail-closed
capability_boundary: Governs tool arguments (validate, clamp); never generates content.
# What \`sluice deploy\` binds (then publishes and activates); the same fields as \`sluice bind\`.
bindings:
  - id: ${id}-tool-before
    point: tool.before
    config: { max_limit: 100 }
`,
    "assembly/index.ts": `// ${id}: clamps the integer \`limit\` argument of a tool call to the binding's \`max_limit\` (default 100).
import { registerHook, Outcome, Value, ToolBefore } from "@sluice/guest-sdk";
export * from "@sluice/guest-sdk/exports";

registerHook((req) => {
  const max = req.config.get("max_limit").asIntOr(100);
  const limit = ToolBefore.of(req).arguments.get("limit");
  if (!limit.isInt() || limit.asFloat() <= <f64>max) return Outcome.continue();
  return Outcome.patchInput().replace("/arguments/limit", Value.int(max));
});
`,
    "samples/01-clamps-a-large-limit.json": JSON.stringify({
      name: "clamps a large limit",
      point: "tool.before",
      config: { max_limit: 100 },
      payload: { tool_id: "orders.search", name: "search", revision: 1, schema: { type: "object" }, arguments: { q: "late", limit: 500 }, call_id: "c1" },
      expect: { outcome: "patch_input", payload: { tool_id: "orders.search", name: "search", revision: 1, schema: { type: "object" }, arguments: { q: "late", limit: 100 }, call_id: "c1" } },
    }, null, 2) + "\n",
    "samples/02-leaves-a-small-limit-alone.json": JSON.stringify({
      name: "leaves a small limit alone",
      point: "tool.before",
      config: { max_limit: 100 },
      payload: { tool_id: "orders.search", name: "search", revision: 1, schema: { type: "object" }, arguments: { q: "late", limit: 5 }, call_id: "c1" },
      expect: { outcome: "continue" },
    }, null, 2) + "\n",
    // build/: sluice build's output; .sluice/: a local sluice serve's data (its token, its database).
    ".gitignore": "build/\nnode_modules/\n.sluice/\n",
  };
}
