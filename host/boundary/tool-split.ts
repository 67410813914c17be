/**
 * A tool call whose before and after arrive as two requests: a coding agent runs its tools
 * itself and asks the host before (tool.before) and after (tool.after), perhaps on two hosts
 * sharing one records store. It is one operation on the one lifecycle: `toolBefore` runs it
 * up to the real call and leaves it awaiting its result in the records; `toolAfter` takes it
 * there, on any host, and runs the rest (tool.after with the before stage's carries, the
 * error and finally stages, the record's ending).
 */
import { SluiceError } from "../errors/sluice-error.js";
import { awaitResult, callOnce } from "../engine/real-call.js";
import { runOperation, type ResumePoint } from "../engine/run-operation.js";
import { beforeOf, claimStored, refused, type ResumeOptions, type Takeable } from "../engine/resume.js";
import type { OperationStages, StageRunner } from "../engine/stages.js";
import type { BoundaryResult, CallContext } from "../engine/call-types.js";
import type { OperationStore } from "../records/store.js";
import type { OperationRecord } from "../records/types.js";
import { toolAfterPayload, toolSpec, type AgentOrigin, type ServiceCheck, type ToolCall, type ToolOutput } from "./tool.js";
import { withKeys } from "../objects/with-keys.js";

/**
 * What the before request answers: the final arguments the caller must run the tool with
 * (the operation now awaits its result), or the view a before hook served instead (nothing
 * is to run; the operation is over).
 */
export type ToolBeforeOutput =
  | { kind: "awaiting"; callId: string; arguments: Record<string, unknown> }
  | { kind: "served"; callId: string; view: unknown };

/** How the tool ended where it ran, as the after request reports it. */
export type ToolEnding =
  | { status: "succeeded"; result: unknown; durationMs?: number }
  | { status: "failed"; durationMs?: number }
  | { status: "unknown"; reason: "expired" | "lost" };

export function toolBefore(runner: StageRunner, ctx: CallContext, call: ToolCall, options: { finalCheck?: ServiceCheck } = {}): Promise<BoundaryResult<ToolBeforeOutput>> {
  return runOperation<unknown, ToolBeforeOutput>(runner, withKeys(toolSpec(ctx, call, options.finalCheck), {
    call: awaitResult,
    awaiting: (input: Record<string, unknown>): ToolBeforeOutput => ({ kind: "awaiting", callId: call.callId, arguments: input.arguments as Record<string, unknown> }),
    output: (after: Record<string, unknown>): ToolBeforeOutput => ({ kind: "served", callId: call.callId, view: after.view }),
  }));
}

/** What the after request needs of the host: its id (the owner it claims as) and stages for a stored operation. */
export interface ContinueHost {
  owner: string;
  resumeStages(record: OperationRecord, ctx: CallContext): OperationStages;
}

const AWAITING: Takeable = {
  code: "OPERATION_NOT_AWAITING",
  cannot: "take a result",
  against: (record, stored) => {
    if (record.phase === "finished") return `its result was reported already (it ended ${record.outcome ?? "without an outcome"})`;
    if (record.phase !== "awaiting") return `it is not awaiting a result (phase ${record.phase})`;
    if (!stored?.input) return "what it awaited with is gone (its stored input's retention ended)";
    return null;
  },
};

export async function toolAfter(host: ContinueHost, store: OperationStore, operationId: string, ending: ToolEnding, options: ResumeOptions = {}): Promise<BoundaryResult<ToolOutput>> {
  const claimed = await claimStored(store, host.owner, operationId, AWAITING);
  if (claimed instanceof SluiceError) return refused(operationId, claimed.record, claimed) as BoundaryResult<ToolOutput>;
  const { record, stored } = claimed;
  const input = stored.input!;
  const call: ToolCall = { toolId: String(input.tool_id), name: String(input.name), schema: input.schema as Record<string, unknown>, arguments: input.arguments as Record<string, unknown>, callId: String(input.call_id), ...(input.agent ? { agent: input.agent as AgentOrigin } : {}) };
  const ctx: CallContext = withKeys(record.identity.ctx, withKeys(options.signal ? { signal: options.signal } : {}, options.deadline !== undefined ? { deadline: options.deadline } : {}));
  const durationMs = ("durationMs" in ending ? ending.durationMs : undefined) ?? Math.max(0, Date.now() - record.updatedAt);
  const before = beforeOf(stored);
  const facts = { revision: record.revision, called: true, attempts: 1 };
  const resumed: ResumePoint<unknown> = ending.status === "succeeded"
    ? { continues: true, before, facts: withKeys(facts, { realStatus: "succeeded" as const }), ending: { real: ending.result, afterPayload: toolAfterPayload(call, ending.result, durationMs, []) } }
    : {
      continues: true, before, facts: withKeys(facts, { realStatus: ending.status }),
      ending: {
        input, durationMs, realStatus: ending.status,
        error: ending.status === "failed"
          ? { code: "OPERATION_FAILED", message: `tool ${call.toolId} failed where it ran` }
          : { code: "OPERATION_RESULT_MISSING", message: `tool ${call.toolId}'s result never came (${ending.reason}): whether it ran is unknown` },
      },
    };
  return runOperation<unknown, ToolOutput>({ begin: () => host.resumeStages(record, ctx) }, withKeys(toolSpec(ctx, call), {
    payload: {},
    call: callOnce(() => Promise.reject(new Error("unreachable: the caller ran this call"))),
    output: (after: Record<string, unknown>): ToolOutput => ({ status: after.status as ToolOutput["status"], view: after.view, callId: call.callId }),
    resumed,
  }));
}
