/**
 * The JSON Schema (draft 2020-12) of `hook.yaml`. Apart from manifest.ts so the build can
 * compile it into standalone validator code (standalone-validators.ts) without the code
 * that uses it.
 */
import { POINT_NAMES } from "../pipeline/points.js";
import { CAPABILITIES } from "../sandbox/capabilities.js";
import { SHAPE_LIMIT_KEYS } from "../sandbox/loader/module-limits.js";
import { BINDING_INPUT_SCHEMA } from "./binding-schema.js";
import { PLUGIN_ID_PATTERN, SEMVER_PATTERN } from "./ids.js";

/** The languages `sluice build` compiles. */
export const GUEST_LANGUAGES = ["assemblyscript", "rust", "c"] as const;

const pointer = { type: "string", pattern: "^(/[^/]*)+$", maxLength: 256 } as const;
const pointers = { type: "array", items: pointer, maxItems: 64, uniqueItems: true } as const;

/** JSON Schema (draft 2020-12) of `hook.yaml`. */
export const MANIFEST_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $id: "https://sluice.dev/schemas/hook-manifest-v1.json",
  title: "Sluice plugin manifest (hook.yaml)",
  type: "object",
  additionalProperties: false,
  required: ["id", "version", "abi", "entry", "points", "capability_boundary"],
  properties: {
    id: { type: "string", pattern: PLUGIN_ID_PATTERN.source },
    version: { type: "string", maxLength: 128, pattern: SEMVER_PATTERN.source },
    abi: { type: "string", pattern: "^\\d{1,4}\\.\\d{1,4}$" },
    entry: { type: "string", minLength: 1, maxLength: 256, pattern: "^(?!/)(?!.*(^|/)\\.\\.(/|$))[^\\\\\\u0000]+$" },
    language: { enum: GUEST_LANGUAGES, description: "The guest's source language; without it, told by entry: .ts AssemblyScript, .rs or Cargo.toml Rust, .c C." },
    description: { type: "string", maxLength: 2000 },
    points: {
      type: "object",
      minProperties: 1,
      propertyNames: { enum: POINT_NAMES },
      properties: {
        // Only the after point of a chat can name a hook that rewrites its stream in its place.
        "model.chat.after": {
          type: ["object", "null"],
          additionalProperties: false,
          properties: { read: pointers, write: pointers, stream_rewrite: { enum: ["chunk"] } },
        },
      },
      additionalProperties: {
        type: ["object", "null"],
        additionalProperties: false,
        properties: { read: pointers, write: pointers },
      },
    },
    config_schema: { type: "object" },
    capabilities: { type: "array", items: { enum: CAPABILITIES }, uniqueItems: true },
    limits: {
      type: "object",
      additionalProperties: false,
      properties: {
        memory_mb: { type: "number", exclusiveMinimum: 0, maximum: 65_536 },
        timeout_ms: { type: "number", exclusiveMinimum: 0, maximum: 3_600_000 },
        input_kb: { type: "number", exclusiveMinimum: 0, maximum: 1_048_576 },
        output_kb: { type: "number", exclusiveMinimum: 0, maximum: 1_048_576 },
        fuel: { type: "integer", minimum: 1, maximum: 1_000_000_000_000 },
        ...Object.fromEntries(Object.values(SHAPE_LIMIT_KEYS).map((k) => [k, { type: "integer", minimum: 1, maximum: 100_000_000 }])),
      },
    },
    failure_policy: { enum: ["fail-closed", "fail-open"] },
    capability_boundary: { type: "string", minLength: 1, maxLength: 1000 },
    bindings: {
      type: "array",
      maxItems: 64,
      description: "What `sluice deploy` binds after uploading: bindings of this plugin version (hook_ref is implied).",
      items: { ...BINDING_INPUT_SCHEMA, required: ["point"], properties: Object.fromEntries(Object.entries(BINDING_INPUT_SCHEMA.properties).filter(([k]) => k !== "hook_ref")) },
    },
  },
} as const;
