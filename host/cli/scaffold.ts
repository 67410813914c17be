import type { GuestLanguage } from "../registry/manifest.js";

/** Where the language's SDK lives, for a Rust crate's path dependency and a C include path. */
export interface SdkDirs { rust: string; c: string }

/**
 * The files of a new plugin in `language`: a working tool.before hook (clamps a `limit`
 * argument), its manifest and two samples, so `sluice build` and `sluice test` pass before
 * any edit.
 */
export function scaffoldFiles(id: string, compilerVersion: string, language: GuestLanguage = "assemblyscript", sdk?: SdkDirs): Record<string, string> {
  const as = assemblyScriptFiles(id, compilerVersion);
  if (language === "assemblyscript") return as;
  const common = {
    "hook.yaml": as["hook.yaml"]!
      .replace('abi: "1.0"\nentry: assembly/index.ts', `abi: "1.2"\nlanguage: ${language}\nentry: ${language === "rust" ? "src/lib.rs" : "hook.c"}`)
      .replace("see abi/README.md and guest-sdk/README.md", `see abi/hook-yaml.md and guest-sdk/${language}/README.md`),
    "samples/01-clamps-a-large-limit.json": as["samples/01-clamps-a-large-limit.json"]!,
    "samples/02-leaves-a-small-limit-alone.json": as["samples/02-leaves-a-small-limit-alone.json"]!,
  };
  if (language === "c") {
    return {
      ...common,
      "hook.c": `/* ${id}: clamps the integer \`limit\` argument of a tool call to the binding's \`max_limit\` (default 100). */
#include "sluice.h"

static sluice_outcome *hook(const sluice_request *req) {
  int64_t max = sluice_as_int_or(sluice_get(req->config, "max_limit"), 100);
  const sluice_value *limit = sluice_get(sluice_tool_arguments(req), "limit");
  if (!sluice_is_int(limit) || sluice_as_float_or(limit, 0) <= (double)max) return sluice_continue();
  return sluice_replace(sluice_patch_input(), "/arguments/limit", sluice_int(max));
}

SLUICE_EXPORT_HOOK(hook)
`,
      // For editors (clangd): where sluice.h is, and the target `sluice build` compiles for.
      "compile_flags.txt": `--target=wasm32-unknown-unknown\n-ffreestanding\n-I${sdk?.c ?? "guest-sdk/c"}\n`,
      ".gitignore": "build/\n.sluice/\n",
    };
  }
  return {
    ...common,
    "Cargo.toml": `[package]
name = "${id}"
version = "0.1.0"
edition = "2021"
publish = false

[lib]
crate-type = ["cdylib"]
path = "src/lib.rs"

[dependencies]
sluice-guest = { path = ${JSON.stringify(sdk?.rust ?? "guest-sdk/rust")} }

[profile.release]
opt-level = 3
lto = true
codegen-units = 1
panic = "abort"
strip = true
`,
    ".cargo/config.toml": `# A Sluice guest: wasm32-unknown-unknown, with a 16 KiB stack and a 2-page initial
# memory. Rust's defaults (a 1 MiB stack, 17 pages) double a hook's fuel: loads are
# priced by the size of the memory (abi/README.md §11).
[build]
target = "wasm32-unknown-unknown"

[target.wasm32-unknown-unknown]
rustflags = ["-C", "link-arg=-zstack-size=16384", "-C", "link-arg=--initial-memory=131072"]
`,
    "src/lib.rs": `//! ${id}: clamps the integer \`limit\` argument of a tool call to the binding's \`max_limit\` (default 100).
use sluice_guest::{export_hook, Outcome, Request, ToolBefore, Value};

fn hook(req: &Request) -> Outcome {
    let max = req.config.get("max_limit").as_int_or(100);
    let limit = ToolBefore::of(req).arguments().get("limit");
    if !limit.is_int() || limit.as_float_or(0.0) <= max as f64 {
        return Outcome::continue_();
    }
    Outcome::patch_input().replace("/arguments/limit", Value::Int(max))
}

export_hook!(hook);
`,
    ".gitignore": "build/\ntarget/\n.sluice/\n",
  };
}

function assemblyScriptFiles(id: string, compilerVersion: string): Record<string, string> {
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
