/** The extension list (registry/extensions.ts) and what toggling or reordering changed, as the API answers them. */
import { BINDING_INPUT_SCHEMA } from "../../registry/binding-schema.js";
import { ORDER_MODE } from "../schemas.js";
import { ref } from "./ref.js";

const strings = { type: "array", items: { type: "string" } } as const;

export const EXTENSION_ITEM = {
  type: "object", additionalProperties: false,
  required: ["extension_id", "pair_id", "pairs_with", "ambiguous_with", "match", "hook_ref", "node_id", "hook_type", "enabled", "mandatory", "order", "priority", "failure_policy", "capability_boundary", "registered_at"],
  properties: {
    extension_id: { type: "string", description: "The binding's id (one item per binding)." },
    pair_id: { type: "string", description: "The pre/post pair the binding belongs to: carries and symmetric unwinding follow it." },
    pairs_with: { ...strings, description: "Its pair's bindings at the other points of its operation." },
    ambiguous_with: { ...strings, description: "Bindings of the same plugin at the same point without extension ids: why it is its own pair." },
    match: BINDING_INPUT_SCHEMA.properties.match,
    hook_ref: { type: "string" },
    node_id: { type: "string", description: "The hook point." },
    hook_type: { type: "string", description: "`pre` before the operation, `post` after it or on its chunks, otherwise the point's stage." },
    enabled: { type: "boolean" },
    mandatory: { type: "boolean" },
    order: { type: "integer", description: "Position in the pipeline order." },
    priority: { type: "integer" },
    failure_policy: { type: "string" },
    capability_boundary: { type: "string" },
    stream_rewrite: { type: "string", enum: ["chunk"], description: "At model.chat.after: the plugin's chunk hook is its stream rewrite (abi/README.md §4.3)." },
    registered_at: { type: "string", format: "date-time" },
    code_sha256: { type: "string", description: "The module the binding runs (releases only; the draft has none yet)." },
  },
} as const;

export const EXTENSION_LIST = {
  type: "object", additionalProperties: false, required: ["sdk_interface_version", "deprecations", "view", "revision", "order_mode", "items"],
  properties: {
    sdk_interface_version: { type: "string" },
    deprecations: {
      type: "array",
      items: { type: "object", additionalProperties: false, required: ["field", "since", "removed_in"], properties: { field: { type: "string" }, since: { type: "string" }, removed_in: { type: "string" } } },
    },
    view: { type: "string", enum: ["active", "draft"] },
    revision: { type: "integer" },
    order_mode: ORDER_MODE,
    items: { type: "array", items: ref("ExtensionItem") },
  },
} as const;

/** What enable, disable or reorder changed: the revision active now, and the one created when the active release held the binding. */
export const CONTROL_CHANGE = {
  type: "object", additionalProperties: false, required: ["revision"],
  properties: {
    revision: { type: "integer", description: "The active revision after the change." },
    created: { type: "integer", description: "Set when the change created and activated a new revision." },
  },
} as const;
