/** A published revision and an activation, as the API answers them. */
import { ORDER_MODE } from "../schemas.js";
import { ref } from "./ref.js";

export const RELEASE_RECORD = {
  type: "object", additionalProperties: false, required: ["revision", "order_mode", "bindings", "based_on", "note", "created_at"],
  properties: {
    revision: { type: "integer" },
    order_mode: ORDER_MODE,
    bindings: { type: "array", items: ref("ReleaseBinding") },
    based_on: { type: ["integer", "null"], description: "The revision this one was derived from by enable, disable or reorder on the active one." },
    note: { type: "string" },
    created_at: { type: "string", format: "date-time" },
  },
} as const;

/** One switch of the active revision; rollback walks this history. */
export const ACTIVATION_RECORD = {
  type: "object", additionalProperties: false, required: ["seq", "revision", "reason", "activated_at"],
  properties: {
    seq: { type: "integer" },
    revision: { type: "integer" },
    reason: { type: "string", enum: ["activate", "rollback", "enable", "disable", "reorder"] },
    activated_at: { type: "string", format: "date-time" },
  },
} as const;
