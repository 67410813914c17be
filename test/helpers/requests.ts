import { ABI_VERSION_STRING } from "../../abi/version.js";
import type { HookContext, RequestEnvelope } from "../../abi/envelope.js";

export function context(point: string, overrides: Partial<HookContext> = {}): HookContext {
  return {
    space_id: "space-a", actor_id: "user-1", run_id: "run-1", instance_id: "main",
    operation_id: "op-1", parent_operation_id: null, call_id: "call-1", point,
    purpose: "action", binding_id: "binding-1", published_revision: 1, deadline: null,
    ...overrides,
  };
}

export function request(point = "tool.before", payload: Record<string, unknown> = {}, config: unknown = {}): RequestEnvelope {
  return { abi: ABI_VERSION_STRING, point, context: context(point), payload, config };
}
