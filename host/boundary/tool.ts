import { argumentsErrors, argumentsValidator } from "./tool-schema.js";
import { fail, OK, type Checked } from "../pipeline/result.js";
import { instanceOf } from "./instance.js";
import { runOperation } from "../engine/run-operation.js";
import { callOnce } from "../engine/real-call.js";
import type { StageRunner } from "../engine/stages.js";
import type { BoundaryOptions, BoundaryResult, CallContext, OperationContext } from "../engine/call-types.js";
import { withKeys } from "../objects/with-keys.js";
import type { ErrorData } from "../errors/sluice-error.js";
import type { Payload } from "../pipeline/points.js";

export { argumentsValidator } from "./tool-schema.js";

/** What `host.tool` takes: the tool's id and name, its JSON Schema, the arguments and the call id. */
export interface ToolCall {
  toolId: string;
  name: string;
  /** JSON Schema of the arguments; the final arguments are validated against it after the hooks. */
  schema: Record<string, unknown>;
  arguments: Record<string, unknown>;
  callId: string;
  revision?: number;
  /** The coding agent's hook event the call comes from (the agents' door sets it). */
  agent?: AgentOrigin;
}

/** The agent, its event and session, and where it runs; cwd and transcript_path reach only plugins whose read grant names them. */
export type AgentOrigin = NonNullable<Payload<"tool.before">["agent"]>;

/** What the caller (and the model) sees; the real result stays in `facts.realResult`. */
export interface ToolOutput {
  status: "succeeded" | "failed";
  view: unknown;
  callId: string;
}


function serviceCheck(check: ((args: Record<string, unknown>) => Checked | boolean | string) | undefined, args: Record<string, unknown>): Checked {
  if (!check) return OK;
  const r = check(args);
  if (r === true) return OK;
  if (r === false) return fail("FINAL_CHECK_FAILED", "the service's final check refused the arguments");
  if (typeof r === "string") return fail("FINAL_CHECK_FAILED", r);
  return r;
}

/** The service's extra check on the final arguments, besides the tool's schema. */
export type ServiceCheck = (args: Record<string, unknown>) => Checked | boolean | string;

/** Everything of a tool operation but how its real call is made and what the caller gets. */
export function toolSpec(ctx: CallContext, call: ToolCall, finalCheck?: ServiceCheck) {
  return {
    operation: "tool" as const,
    ctx,
    before: "tool.before" as const,
    after: "tool.after" as const,
    payload: toolBeforePayload(call),
    target: withKeys(ctx.purpose ? { purpose: ctx.purpose } : {}, { toolId: call.toolId, instance: instanceOf(ctx), spaceId: ctx.spaceId }),
    callId: call.callId,
    // Runs on the final arguments, after every hook; no binding can turn it off.
    finalCheck: (input: Record<string, unknown>): Checked => {
      const args = input.arguments as Record<string, unknown>;
      const validate = argumentsValidator(call.schema);
      if (!validate(args)) return fail("FINAL_CHECK_FAILED", `final arguments of ${call.name} fail the tool's schema: ${argumentsErrors(validate)}`, { tool: call.toolId });
      return serviceCheck(finalCheck, args);
    },
    served: (result: unknown) => ({ ok: true as const, real: result }),
    afterPayload: (_input: Record<string, unknown>, real: unknown, durationMs: number, artifacts: readonly Record<string, unknown>[]) => toolAfterPayload(call, real, durationMs, artifacts),
    // A failed tool still passes tool.after (real status failed): the model-visible view of the failure may be changed, the status and error may not.
    failedAfterPayload: (_input: Record<string, unknown>, error: ErrorData, durationMs: number, artifacts: readonly Record<string, unknown>[]) => toolFailedAfterPayload(call, error, durationMs, artifacts),
  };
}

/** tool.before's payload for a call. */
export function toolBeforePayload(call: ToolCall): Record<string, unknown> {
  return { tool_id: call.toolId, name: call.name, schema: call.schema, arguments: call.arguments, call_id: call.callId, ...(call.revision !== undefined ? { revision: call.revision } : {}), ...(call.agent ? { agent: call.agent } : {}) };
}

/** tool.after's payload for a tool that failed: its status and error are facts, the view of the failure is what a hook may change. */
export function toolFailedAfterPayload(call: Pick<ToolCall, "toolId" | "name" | "callId" | "agent">, error: { code: string; message: string }, durationMs: number, artifacts: readonly Record<string, unknown>[]): Record<string, unknown> {
  return {
    tool_id: call.toolId, name: call.name, call_id: call.callId, status: "failed", result: null, error: { code: error.code, message: error.message },
    ...(artifacts.length > 0 ? { artifacts: [...artifacts] } : {}), duration_ms: durationMs, view: { error: error.message }, ...(call.agent ? { agent: call.agent } : {}),
  };
}

/** tool.after's payload for a result: the real result, and the view the model will see (the same, until a hook changes it). */
export function toolAfterPayload(call: Pick<ToolCall, "toolId" | "name" | "callId" | "agent">, real: unknown, durationMs: number, artifacts: readonly Record<string, unknown>[]): Record<string, unknown> {
  return {
    tool_id: call.toolId, name: call.name, call_id: call.callId, status: "succeeded", result: real ?? null,
    ...(artifacts.length > 0 ? { artifacts: [...artifacts] } : {}), duration_ms: durationMs, view: real ?? null, ...(call.agent ? { agent: call.agent } : {}),
  };
}

export function tool(
  runner: StageRunner, ctx: CallContext, call: ToolCall,
  execute: (args: Record<string, unknown>, op: OperationContext) => Promise<unknown>,
  options: BoundaryOptions & { finalCheck?: ServiceCheck } = {},
): Promise<BoundaryResult<ToolOutput>> {
  return runOperation<unknown, ToolOutput>(runner, withKeys(toolSpec(ctx, call, options.finalCheck), {
    call: callOnce((input, op) => execute(input.arguments as Record<string, unknown>, op), options.retries),
    output: (after: Record<string, unknown>): ToolOutput => ({ status: after.status as ToolOutput["status"], view: after.view, callId: call.callId }),
  }));
}
