/**
 * abi/hook-yaml.md: hook.yaml specified field by field, rendered from the schema the
 * registry validates manifests with (MANIFEST_SCHEMA), so the page can never disagree with
 * what an upload accepts. The prose per field lives here; types, constraints, required
 * keys and defaults-by-omission come from the schema.
 */
import { MANIFEST_SCHEMA } from "./manifest.js";

type Schema = Record<string, unknown>;

/** What each key means, beyond its type. */
const NOTES: Record<string, string> = {
  id: "The plugin's id: lowercase letters, digits and `-`, as the pattern says. Bindings name the plugin as `id@version`.",
  version: "Semantic version. A plugin id and version name one immutable module: upload a new version to change the code.",
  abi: "The ABI version the module speaks, `major.minor`. It must equal the module's marker export (`sluice_abi_v1_2` is `\"1.2\"`): an upload whose module declares another version is `MANIFEST_INVALID`, and a version this host does not serve is refused.",
  language: "For the author commands only (`sluice build`, `test`, `dev`, `deploy`): which toolchain builds `entry`. Absent: `.rs` or `Cargo.toml` is Rust, `.c` is C, anything else AssemblyScript. The host never reads it.",
  entry: "The source file the author commands compile, relative to the plugin folder: `assembly/index.ts` (AssemblyScript), `src/lib.rs` (Rust: the crate around it is built), `hook.c` (C). No absolute path, no `..` segment, no backslash.",
  description: "Free text shown in listings.",
  points: "The hook points the module handles, each with the payload fields it may read and write (JSON Pointer prefixes). At least one. A binding may only bind a declared point.",
  "points.*.read": "The payload fields the host sends (only these; absent: every field of the point). Each a JSON Pointer prefix such as `/arguments`.",
  "points.*.write": "The payload fields a patch may change: each must lie within what the point lets a hook change (abi/README.md §12); a patch outside them is `PATCH_FORBIDDEN`. Absent: nothing.",
  "points.model.chat.after.stream_rewrite": "`chunk`: the plugin's `model.chat.chunk` hook rewrites a stream in place of its after hook, so a stream is not held back for it (abi/README.md §4.3). Needs `model.chat.chunk` in `points`.",
  config_schema: "JSON Schema (draft 2020-12) of a binding's `config`; the host validates every binding's config against it before the guest sees it. Absent: `{type: object}`.",
  capabilities: "Host functions beyond `log` and `abort`: `kv` grants the key-value imports (abi/README.md §3). A module that imports a capability not listed here is refused at upload (`CAPABILITY_NOT_GRANTED`).",
  limits: "Per-invocation limits the plugin asks for; the host caps each at its maximum (abi/README.md §7, §7.1).",
  "limits.memory_mb": "Linear memory limit in MiB (default 16).",
  "limits.timeout_ms": "Time limit per invocation in ms (default 100): the backstop for what fuel cannot price.",
  "limits.input_kb": "Largest request in KiB (default 1024): a larger one is `INPUT_TOO_LARGE` before the guest runs.",
  "limits.output_kb": "Largest reply in KiB (default 1024): `OUTPUT_TOO_LARGE`.",
  "limits.fuel": "Fuel per invocation (default 50,000,000; abi/README.md §11).",
  failure_policy: "What a guest failure (trap, timeout, fuel, invalid reply) does to the operation: `fail-closed` (default) ends it with `HOOK_FAILED`; `fail-open` skips the hook. A binding may override it.",
  capability_boundary: "One sentence on what the plugin governs and what it never does, shown to whoever reviews a binding. Required.",
  bindings: "What `sluice deploy` binds after uploading, then publishes and activates: each item is a binding of this plugin version (the `hook_ref` is implied) with the fields of `sluice bind` and `POST /api/v1/bindings`. `id` defaults to `<plugin>-<point>`.",
};

function typeOf(s: Schema | undefined): string {
  if (!s || Object.keys(s).length === 0) return "any";
  if (Array.isArray(s.enum)) return s.enum.map((v) => `\`${JSON.stringify(v)}\``).join(" \\| ");
  const t = Array.isArray(s.type) ? s.type.join(" \\| ") : String(s.type ?? "any");
  if (t === "array") return `${typeOf(s.items as Schema | undefined)}[]`;
  return t;
}

function constraints(s: Schema): string {
  const c: string[] = [];
  if (typeof s.pattern === "string") c.push(`pattern \`${s.pattern}\``);
  if (s.minLength !== undefined) c.push(`at least ${String(s.minLength)} characters`);
  if (s.maxLength !== undefined) c.push(`at most ${String(s.maxLength)} characters`);
  if (s.minimum !== undefined) c.push(`≥ ${String(s.minimum)}`);
  if (s.exclusiveMinimum !== undefined) c.push(`> ${String(s.exclusiveMinimum)}`);
  if (s.maximum !== undefined) c.push(`≤ ${String(s.maximum)}`);
  if (s.maxItems !== undefined) c.push(`at most ${String(s.maxItems)} items`);
  if (s.minProperties !== undefined) c.push(`at least ${String(s.minProperties)} entry`);
  if (s.uniqueItems) c.push("no duplicates");
  const items = s.items as Schema | undefined;
  if (items && typeof items.pattern === "string") c.push(`each matches \`${items.pattern}\``);
  if (items && typeof items.maxLength === "number") c.push(`each at most ${items.maxLength} characters`);
  // A pattern's `|` would end the table cell.
  return c.join("; ").replace(/\|/g, "\\|");
}

function row(key: string, s: Schema, required: boolean): string {
  const note = NOTES[key] ?? (typeof s.description === "string" ? s.description : "");
  const c = constraints(s);
  return `| \`${key}\` | ${typeOf(s)} | ${required ? "yes" : "no"} | ${[note, c ? `(${c})` : ""].filter(Boolean).join(" ")} |`;
}

/** The page, in the schema's key order. */
export function renderManifestDocs(): string {
  const schema = MANIFEST_SCHEMA as unknown as Schema;
  const props = schema.properties as Record<string, Schema>;
  const required = new Set(schema.required as string[]);
  const points = props.points!;
  const grant = points.additionalProperties as Schema;
  const afterGrant = (points.properties as Record<string, Schema>)["model.chat.after"]!;
  const limits = props.limits!.properties as Record<string, Schema>;
  const binding = (props.bindings!.items as Schema);
  const bindingProps = binding.properties as Record<string, Schema>;
  const out = [
    "# hook.yaml, field by field",
    "",
    "<!-- Generated by scripts/docs-manifest.mjs from MANIFEST_SCHEMA (host/registry/manifest.ts): edit those, not this file. test/registry/manifest-docs.test.ts keeps them in sync. -->",
    "",
    "A plugin's manifest. The registry reads it with one parser (`parseManifest`): YAML 1.2 core schema, no aliases, no duplicate keys, at most 64 KiB; every key below and no other (an unknown key is `MANIFEST_INVALID` naming it and listing the allowed ones). The same checks run in `sluice build`, `test` and `deploy` and at upload.",
    "",
    "| key | type | required | meaning |",
    "| --- | --- | --- | --- |",
    ...Object.entries(props).map(([k, s]) => row(k, s, required.has(k))),
    "",
    "## `points.<point>`",
    "",
    "`<point>` is one of the names of abi/README.md §12. Each value is a map (or empty):",
    "",
    "| key | type | required | meaning |",
    "| --- | --- | --- | --- |",
    ...Object.entries(grant.properties as Record<string, Schema>).map(([k, s]) => row(`points.*.${k}`, s, false).replace(`\`points.*.${k}\``, `\`${k}\``)),
    ...Object.entries(afterGrant.properties as Record<string, Schema>).filter(([k]) => !(k in (grant.properties as Schema))).map(([k, s]) => row(`points.model.chat.after.${k}`, s, false).replace(`\`points.model.chat.after.${k}\``, `\`${k}\` (only under \`model.chat.after\`)`)),
    "",
    "## `limits`",
    "",
    "| key | type | required | meaning |",
    "| --- | --- | --- | --- |",
    ...Object.entries(limits).map(([k, s]) => row(`limits.${k}`, s, false).replace(`\`limits.${k}\``, `\`${k}\``)),
    "",
    "The module-shape keys other than the four sizes and `fuel` bound what a module may declare (abi/README.md §7.1).",
    "",
    "## `bindings[]`",
    "",
    "| key | type | required | meaning |",
    "| --- | --- | --- | --- |",
    ...Object.entries(bindingProps).map(([k, s]) => row(`bindings.${k}`, s, (binding.required as string[]).includes(k)).replace(`\`bindings.${k}\``, `\`${k}\``)),
    "",
    "## Example",
    "",
    "```yaml",
    "id: order-search-limit-rust",
    "version: 1.0.0",
    'abi: "1.2"',
    "language: rust",
    "entry: src/lib.rs",
    "points:",
    "  tool.before:",
    "    read: [/tool_id, /name, /arguments]",
    "    write: [/arguments]",
    "config_schema:",
    "  type: object",
    "  required: [max_limit]",
    "  properties:",
    "    max_limit: { type: integer, minimum: 1 }",
    "capabilities: []",
    "limits: { memory_mb: 16, timeout_ms: 200, input_kb: 256, output_kb: 64 }",
    "failure_policy: fail-closed",
    "capability_boundary: Governs tool arguments (validate, clamp); never generates content.",
    "bindings:",
    "  - id: orders-limit",
    "    point: tool.before",
    "    config: { max_limit: 100 }",
    "```",
    "",
  ];
  return out.join("\n");
}
