/**
 * The plugin manifest (`hook.yaml`): what a plugin is, which payload fields it reads and
 * may write at each point, what it needs, and what it promises (abi/README.md §4.3,
 * SECURITY.md on the capability boundary). Parsed defensively: the text comes from whoever uploads.
 */
import { parseDocument, visit } from "yaml";
import { SUPPORTED_ABI } from "../../abi/version.js";
import { SluiceError } from "../errors/sluice-error.js";
import type { Grants } from "../engine/hooks.js";
import { getPoint, type PointName } from "../pipeline/points.js";
import type { Capability } from "../sandbox/capabilities.js";
import type { PluginLimits } from "../sandbox/limits.js";
import { SHAPE_LIMIT_KEYS } from "../sandbox/loader/module-limits.js";
import { compileConfigSchema } from "./config-schema.js";
import { GUEST_LANGUAGES, MANIFEST_SCHEMA } from "./manifest-schema.js";
import { validateManifestShape as validateShape } from "./shape-validators.generated.js";
import { explainErrors, problemsText } from "./validation-message.js";
import { MANIFEST_MAX_NESTING, yamlNestingBound } from "./yaml-depth.js";

/** A manifest larger than this is refused before it is parsed. */
export const MANIFEST_MAX_BYTES = 64 * 1024;
export { MANIFEST_MAX_NESTING } from "./yaml-depth.js";
export { GUEST_LANGUAGES, MANIFEST_SCHEMA };

/** What a binding does when its hook fails: stop the operation (fail-closed) or go on without it (fail-open). */
export type FailurePolicy = "fail-closed" | "fail-open";

/** What a manifest grants a plugin at one point: the payload fields it reads and writes. */
export interface PointGrant {
  /** JSON Pointer prefixes of the payload the host sends the plugin; absent: the whole payload. */
  read?: string[];
  /** JSON Pointer prefixes the plugin may patch; each must lie within what the point allows. */
  write?: string[];
  /**
   * At model.chat.after only: `chunk` declares that the plugin's model.chat.chunk hook is its
   * stream rewrite, so on a stream its after hook judges the answer read-only and the text
   * is not held back (abi/README.md §4.3).
   */
  stream_rewrite?: "chunk";
}

/** The limits a manifest asks for, in the manifest's units (MB, ms, KB). */
export interface ManifestLimits {
  memory_mb?: number;
  timeout_ms?: number;
  input_kb?: number;
  output_kb?: number;
  /** Fuel per call: the hook's instruction budget (abi/README.md §11). */
  fuel?: number;
  /** Static bounds on the module's shape (abi/README.md §7.1), one key per limit: tables, table_entries, functions, ... */
  [shapeLimit: string]: number | undefined;
}

/** A validated manifest, with defaults filled in. */
export interface Manifest {
  id: string;
  version: string;
  abi: string;
  entry: string;
  /** The guest's source language, for the author commands; absent: told by `entry` (abi/hook-yaml.md). */
  language?: GuestLanguage;
  description?: string;
  points: Partial<Record<PointName, PointGrant>>;
  config_schema: Record<string, unknown>;
  capabilities: Capability[];
  limits: ManifestLimits;
  failure_policy: FailurePolicy;
  capability_boundary: string;
  /** Bindings `sluice deploy` writes (each without hook_ref: it is this plugin version). */
  bindings?: ManifestBinding[];
}

export type GuestLanguage = (typeof GUEST_LANGUAGES)[number];

/** A binding in hook.yaml's `bindings` section: a binding input without hook_ref; id defaults to `<plugin>-<point>`. */
export interface ManifestBinding {
  id?: string;
  point: PointName;
  [field: string]: unknown;
}

function invalid(message: string, details: Record<string, unknown> = {}): SluiceError {
  return new SluiceError("MANIFEST_INVALID", `hook.yaml: ${message}`, details);
}

/**
 * Parses and validates the text of a `hook.yaml`. YAML aliases are refused outright
 * (manifests never need them, and they are how "billion laughs" bombs expand), as are
 * texts over {@link MANIFEST_MAX_BYTES}.
 * @example const manifest = parseManifest(await readFile("hook.yaml", "utf8"));
 */
export function parseManifest(text: string): Manifest {
  const size = Buffer.byteLength(text, "utf8");
  if (size > MANIFEST_MAX_BYTES) throw invalid(`is ${size} bytes; the limit is ${MANIFEST_MAX_BYTES}`, { size, limit: MANIFEST_MAX_BYTES });
  const nesting = yamlNestingBound(text);
  if (nesting > MANIFEST_MAX_NESTING) throw invalid(`is nested too deeply (up to ${nesting} levels; the limit is ${MANIFEST_MAX_NESTING})`, { nesting, limit: MANIFEST_MAX_NESTING });
  let value: unknown;
  try {
    const doc = parseDocument(text, { schema: "core", uniqueKeys: true, merge: false, prettyErrors: true });
    if (doc.errors.length > 0) throw invalid(`is not valid YAML: ${yamlErrorText(text, doc.errors[0]!)}`, yamlErrorAt(text, doc.errors[0]!));
    let alias = false;
    visit(doc, { Alias: () => { alias = true; return visit.BREAK; } });
    if (alias) throw invalid("YAML aliases (*name) are not allowed in manifests; write the value out");
    value = doc.toJS({ maxAliasCount: 0 });
  } catch (err) {
    if (err instanceof SluiceError) throw err;
    // A parser that runs out of stack on absurd nesting lands here too.
    throw invalid(`cannot be parsed: ${(err as Error).message}`);
  }
  return validateManifest(value);
}

/**
 * The parser reports an unclosed quote where the text ends; the author needs where it
 * opens: the first line with an odd number of that quote character.
 */
function unclosedQuote(text: string, quote: string): { line: number; column: number } | undefined {
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const content = lines[i]!.replace(/\\./g, "  ");
    const at: number[] = [];
    for (let c = 0; c < content.length; c++) if (content[c] === quote) at.push(c);
    if (at.length % 2 === 1) return { line: i + 1, column: at[at.length - 1]! + 1 };
  }
  return undefined;
}

function yamlErrorAt(text: string, err: { code: string; message: string; linePos?: [{ line: number; col: number }, ...unknown[]] }): { line?: number; column?: number } {
  if (err.code === "MISSING_CHAR" && /quote/.test(err.message)) {
    const opened = unclosedQuote(text, err.message.includes("'") && !err.message.includes('"') ? "'" : '"');
    if (opened) return opened;
  }
  return err.linePos ? { line: err.linePos[0].line, column: err.linePos[0].col } : {};
}

function yamlErrorText(text: string, err: { code: string; message: string; linePos?: [{ line: number; col: number }, ...unknown[]] }): string {
  const at = yamlErrorAt(text, err);
  const first = err.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
  if (err.code === "MISSING_CHAR" && /quote/.test(err.message) && at.line !== undefined) return `a quoted value opened at line ${at.line}, column ${at.column} is never closed (${first})`;
  return at.line !== undefined ? `${first} at line ${at.line}, column ${at.column}` : first;
}

/** Validates an already parsed manifest (e.g. sent as JSON) and fills its defaults. */
export function validateManifest(value: unknown): Manifest {
  if (!validateShape(value)) {
    const errors = explainErrors(validateShape.errors, value, MANIFEST_SCHEMA);
    throw invalid(problemsText(errors), { errors });
  }
  const raw = value as unknown as Record<string, unknown> & { points: Record<string, PointGrant | null> };
  const [major, minor] = String(raw.abi).split(".").map(Number) as [number, number];
  const served = SUPPORTED_ABI[major];
  if (served === undefined || minor > served) {
    throw invalid(`abi ${String(raw.abi)} is not served by this host (it serves ${Object.entries(SUPPORTED_ABI).map(([a, b]) => `${a}.${b}`).join(", ")})`, { field: "abi" });
  }
  const points: Partial<Record<PointName, PointGrant>> = {};
  for (const [name, grant] of Object.entries(raw.points)) {
    const point = getPoint(name as PointName);
    for (const path of grant?.write ?? []) {
      if (!point.patchable.some((p) => path === p || path.startsWith(`${p}/`))) {
        throw invalid(`points.${name}.write: ${path} is outside what ${name} lets a hook change (${point.patchable.join(", ") || "nothing"})`, { field: `points.${name}.write`, path });
      }
    }
    if (grant?.stream_rewrite === "chunk" && !("model.chat.chunk" in raw.points)) {
      throw invalid(`points.model.chat.after.stream_rewrite: chunk needs a model.chat.chunk hook; add model.chat.chunk to points`, { field: "points.model.chat.after.stream_rewrite" });
    }
    points[name as PointName] = { ...(grant?.read ? { read: [...grant.read] } : {}), ...(grant?.write ? { write: [...grant.write] } : {}), ...(grant?.stream_rewrite ? { stream_rewrite: grant.stream_rewrite } : {}) };
  }
  const configSchema = (raw.config_schema as Record<string, unknown> | undefined) ?? { type: "object" };
  compileConfigSchema(configSchema);
  return {
    id: raw.id as string,
    version: raw.version as string,
    abi: raw.abi as string,
    entry: raw.entry as string,
    ...(raw.language !== undefined ? { language: raw.language as GuestLanguage } : {}),
    ...(raw.description !== undefined ? { description: raw.description as string } : {}),
    points,
    config_schema: configSchema,
    capabilities: [...((raw.capabilities as Capability[] | undefined) ?? [])],
    limits: { ...((raw.limits as ManifestLimits | undefined) ?? {}) },
    failure_policy: (raw.failure_policy as FailurePolicy | undefined) ?? "fail-closed",
    capability_boundary: raw.capability_boundary as string,
    ...(raw.bindings !== undefined ? { bindings: (raw.bindings as ManifestBinding[]).map((b) => ({ ...b })) } : {}),
  };
}

const KiB = 1024;
const MiB = 1024 * KiB;

/** The limits a manifest requests, in the host's units; the sandbox caps them by its maximums. */
export function manifestLimits(m: Manifest): Partial<PluginLimits> {
  const l = m.limits;
  return {
    ...(l.memory_mb !== undefined ? { memoryBytes: Math.round(l.memory_mb * MiB) } : {}),
    ...(l.timeout_ms !== undefined ? { timeoutMs: l.timeout_ms } : {}),
    ...(l.input_kb !== undefined ? { inputBytes: Math.round(l.input_kb * KiB) } : {}),
    ...(l.output_kb !== undefined ? { outputBytes: Math.round(l.output_kb * KiB) } : {}),
    ...(l.fuel !== undefined ? { fuel: l.fuel } : {}),
    ...Object.fromEntries((Object.entries(SHAPE_LIMIT_KEYS) as [keyof typeof SHAPE_LIMIT_KEYS, string][])
      .filter(([, key]) => (l as Record<string, number | undefined>)[key] !== undefined)
      .map(([limit, key]) => [limit, (l as Record<string, number>)[key]! * (limit === "functionBytes" ? KiB : 1)])),
  };
}

/** What the host grants the plugin per point: it sends only `read` fields and refuses patches outside `write`. */
export function manifestGrants(m: Manifest): Grants {
  const grants: Grants = {};
  for (const [point, g] of Object.entries(m.points) as [PointName, PointGrant][]) {
    grants[point] = { ...(g.read ? { read: g.read } : {}), write: g.write ?? [], ...(g.stream_rewrite ? { streamRewrite: g.stream_rewrite } : {}) };
  }
  return grants;
}
