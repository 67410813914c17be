/** A stored plugin version as the API answers it: the record, and the manifest as it was validated (defaults filled in). */
import { GUEST_LANGUAGES } from "../../registry/manifest-schema.js";
import { ref } from "./ref.js";

const strings = { type: "array", items: { type: "string" } } as const;

/** What a hook may read and write at one point; null grants the point with the defaults. */
const POINT_GRANT = {
  type: ["object", "null"], additionalProperties: false,
  properties: { read: strings, write: strings, stream_rewrite: { type: "string", enum: ["chunk"] } },
} as const;

export const MANIFEST = {
  type: "object", additionalProperties: false,
  required: ["id", "version", "abi", "entry", "points", "config_schema", "capabilities", "limits", "failure_policy", "capability_boundary"],
  properties: {
    id: { type: "string" },
    version: { type: "string" },
    abi: { type: "string" },
    entry: { type: "string" },
    language: { type: "string", enum: GUEST_LANGUAGES },
    description: { type: "string" },
    points: { type: "object", additionalProperties: POINT_GRANT, description: "The points the plugin declares, each with its read and write grant." },
    config_schema: { type: "object", additionalProperties: true, description: "The JSON Schema each binding's config is checked against." },
    capabilities: strings,
    limits: {
      type: "object", additionalProperties: { type: "number" },
      description: "The manifest's limits: memory_mb, timeout_ms, input_kb, output_kb, fuel, and the module's static shape bounds (abi/README.md §7.1).",
      properties: { memory_mb: { type: "number" }, timeout_ms: { type: "number" }, input_kb: { type: "number" }, output_kb: { type: "number" }, fuel: { type: "integer" } },
    },
    failure_policy: { type: "string", enum: ["fail-closed", "fail-open"] },
    capability_boundary: { type: "string" },
    bindings: { type: "array", items: { type: "object", additionalProperties: true } },
  },
} as const;

export const PLUGIN_SOURCE = {
  type: "object", additionalProperties: false, required: ["repository", "commit"],
  description: "Where the version was built from (`sluice deploy --git`).",
  properties: { repository: { type: "string" }, commit: { type: "string" }, ref: { type: "string" }, path: { type: "string" } },
} as const;

export const PLUGIN_RECORD = {
  type: "object", additionalProperties: false, required: ["id", "version", "sha256", "size", "manifest", "created_at"],
  properties: {
    id: { type: "string" },
    version: { type: "string" },
    sha256: { type: "string", description: "sha256 of the module bytes." },
    size: { type: "integer", description: "The module's size in bytes." },
    manifest: ref("Manifest"),
    created_at: { type: "string", format: "date-time" },
    source: PLUGIN_SOURCE,
  },
} as const;
