/**
 * {@link SplitTools} over the host's stages, in this process: tool.before runs when the
 * agent's before event arrives, the stages stay open in memory until its after event (or
 * the pairing's expiry) ends them. For a host without a records store (the split lifecycle
 * keeps its open operations there): it keeps no operation record, so the two halves must
 * reach the same process.
 */
import type { Host } from "../host.js";
import type { OperationStages } from "../engine/stages.js";
import type { StageResult } from "../pipeline/run-steps.js";
import { toolAfterPayload, toolBeforePayload, toolFailedAfterPayload, type ToolCall } from "../boundary/tool.js";
import { instanceOf } from "../boundary/instance.js";
import type { AfterResult, BeforeResult, SplitTools, ToolEnding } from "./split-tools.js";
import { stageAnnotations, stageRefusal } from "./output-verdict.js";

interface Open { stages: OperationStages; before: StageResult; call: ToolCall; args: Record<string, unknown> }

export function stagedSplitTools(host: Host, maxOpen = 10_000): SplitTools {
  const open = new Map<string, Open>();
  return {
    async before(ctx, call): Promise<BeforeResult> {
      const stages = host.begin(ctx, { ...(ctx.purpose ? { purpose: ctx.purpose } : {}), toolId: call.toolId, instance: instanceOf(ctx), spaceId: ctx.spaceId }, call.callId);
      const operationId = stages.operationId;
      let r: StageResult;
      try { r = await stages.run("tool.before", toolBeforePayload(call)); } catch (err) { stages.end(); throw err; }
      const annotations = stageAnnotations(r);
      const error = stageRefusal(r);
      if (error) { stages.end(); return { ok: false, operationId, error, annotations }; }
      const args = r.payload.arguments as Record<string, unknown>;
      if (r.stop?.kind === "short_circuit") { stages.end(); return { ok: true, operationId, arguments: args, served: { result: r.stop.result }, annotations }; }
      // The oldest open call gives way: the pairing expires pres whose post never comes long before.
      if (open.size >= maxOpen) { const [oldest] = open.keys(); open.get(oldest!)?.stages.end(); open.delete(oldest!); }
      open.set(operationId, { stages, before: r, call, args });
      return { ok: true, operationId, arguments: args, annotations };
    },
    async after(operationId, ending: ToolEnding): Promise<AfterResult> {
      const o = open.get(operationId);
      if (!o) return { ok: false, error: { code: "OPERATION_NOT_FOUND", message: `no open tool call ${operationId} in this process` }, annotations: {} };
      open.delete(operationId);
      const { stages, before, call } = o;
      try {
        if (ending.status === "unknown") {
          await stages.diagnostic("operation.finally", { operation: "tool", real_status: "unknown", outcome: "failed" });
          return { ok: false, error: { code: "OPERATION_FAILED", message: ending.reason }, annotations: {} };
        }
        const payload = ending.status === "succeeded"
          ? toolAfterPayload(call, ending.result, ending.durationMs ?? 0, [])
          : toolFailedAfterPayload(call, ending.error, ending.durationMs ?? 0, []);
        const r = await stages.runAfter("tool.after", payload, before);
        const annotations = stageAnnotations(r);
        const error = stageRefusal(r);
        if (ending.status === "failed") {
          await stages.diagnostic("operation.error", { operation: "tool", phase: "operation", error: ending.error, real_status: "failed", reached_binding: null });
          await stages.diagnostic("operation.finally", { operation: "tool", real_status: "failed", outcome: "failed" });
          return { ok: false, error: { code: "OPERATION_FAILED", message: ending.error.message }, view: r.payload.view, annotations };
        }
        await stages.diagnostic("operation.finally", { operation: "tool", real_status: "succeeded", outcome: error ? "blocked" : "succeeded" });
        return error ? { ok: false, error, annotations } : { ok: true, view: r.payload.view, annotations };
      } finally {
        stages.end();
      }
    },
  };
}
