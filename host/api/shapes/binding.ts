/** A binding as the API answers it: the fields a client writes (binding-schema.ts), and where the draft or a release keeps it. */
import { BINDING_INPUT_SCHEMA } from "../../registry/binding-schema.js";

const SPEC = BINDING_INPUT_SCHEMA.properties;
const SPEC_REQUIRED = ["id", "hook_ref", "point", "match", "priority", "timeout_ms", "failure_policy", "observe_only", "config", "enabled", "mandatory"] as const;

/** A binding of the draft pipeline: what the next publish freezes. */
export const BINDING_RECORD = {
  type: "object", additionalProperties: false,
  required: [...SPEC_REQUIRED, "position", "registered_at", "updated_at"],
  properties: {
    ...SPEC,
    position: { type: "integer", description: "Place in the pipeline order; ties in priority run in this order." },
    registered_at: { type: "string", format: "date-time" },
    updated_at: { type: "string", format: "date-time" },
  },
} as const;

/** A binding frozen into a release, with the exact code it runs. */
export const RELEASE_BINDING = {
  type: "object", additionalProperties: false,
  required: [...SPEC_REQUIRED, "position", "registered_at", "code_sha256"],
  properties: {
    ...SPEC,
    position: { type: "integer" },
    registered_at: { type: "string", format: "date-time" },
    code_sha256: { type: "string", description: "sha256 of the module the binding runs." },
  },
} as const;
