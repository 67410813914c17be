import type { ErrorCode } from "../errors/codes.js";

/** The families of `error_type` in error events (abi/events: agent.error, tool.invocation.failed). */
export type ErrorType = "validation" | "policy" | "hook" | "operation" | "cancelled" | "capacity" | "registry" | "internal";

// Not an exhaustive Record<ErrorCode, ...>: codes are added by several parts of the host,
// and a new code is an "internal" error until someone files it under a family.
const FAMILIES: Readonly<Record<Exclude<ErrorType, "internal">, readonly ErrorCode[]>> = {
  validation: ["PAYLOAD_INVALID", "FINAL_CHECK_FAILED", "CONFIG_INVALID", "REQUEST_INVALID", "EMBEDDING_SIGNATURE_MISMATCH"],
  policy: ["HOOK_REJECTED", "HOOK_BLOCKED", "HOOK_ASKED"],
  hook: [
    "HOOK_FAILED", "HOOK_EXCEPTION", "OUTCOME_NOT_ALLOWED", "PATCH_FORBIDDEN", "PATCH_INVALID", "GUEST_TIMEOUT", "GUEST_MEMORY_LIMIT",
    "GUEST_STACK_OVERFLOW", "GUEST_TRAP", "GUEST_ABORTED", "GUEST_FUEL_EXHAUSTED", "OUTPUT_TOO_LARGE", "OUTPUT_OUT_OF_BOUNDS", "OUTPUT_MALFORMED", "OUTPUT_INVALID", "INPUT_TOO_LARGE",
  ],
  operation: ["OPERATION_FAILED", "EMBEDDING_SHAPE_INVALID", "MODEL_OUTPUT_INVALID"],
  cancelled: ["CALL_CANCELLED", "DEADLINE_EXCEEDED"],
  capacity: ["QUEUE_FULL", "EXECUTOR_CLOSED", "WORKER_CRASHED"],
  registry: ["PLUGIN_NOT_FOUND", "BINDING_NOT_FOUND", "RELEASE_NOT_FOUND", "STORE_UNAVAILABLE"],
};
const BY_CODE = new Map<string, ErrorType>(Object.entries(FAMILIES).flatMap(([type, codes]) => codes.map((c) => [c, type as ErrorType] as const)));

/** The family of an error code, for routing and alerting on error events. */
export function errorTypeOf(code: string): ErrorType {
  return BY_CODE.get(code) ?? "internal";
}
