/**
 * Observes one boundary or lifecycle call from the outside: it wraps the call's stages to
 * see every StageResult as it completes (hook events, hook spans, hook metrics) and the
 * call's returned value to see how it ended (tool / agent events, the boundary span and
 * metrics). The boundary code itself never calls it.
 */
import { context as otelContext, type Context, type Span } from "@opentelemetry/api";
import type { EventFields } from "../../abi/events/index.js";
import type { SluiceError } from "../errors/sluice-error.js";
import type { PointName } from "../pipeline/points.js";
import type { StageResult } from "../pipeline/run-steps.js";
import type { OperationStages, StageRunner } from "../boundary/stage-runner.js";
import type { BoundaryResult, CallContext, HookTrace } from "../boundary/types.js";
import type { ToolCall, ToolOutput } from "../boundary/tool.js";
import type { LifecyclePoint } from "../boundary/lifecycle.js";
import { endBoundarySpan, nowMs, recordHookSpans, startBoundarySpan } from "../telemetry/tracing.js";
import { stepDurationMs } from "../telemetry/step-duration.js";
import { errorTypeOf } from "./error-type.js";
import { digest, jsonSafe } from "./json-safe.js";
import type { Observer } from "./observer.js";

/** What is being called. */
export type Subject =
  | { operation: "chat" | "embedding"; ctx: CallContext; model: string }
  | { operation: "tool"; ctx: CallContext; call: ToolCall }
  | { operation: "run" | "subtask"; ctx: CallContext; point: LifecyclePoint; payload: Record<string, unknown> };

/** How a lifecycle call ends (host.lifecycle's value). */
export type Observed = { ok: true; hooks: HookTrace[] } | { ok: false; error: SluiceError; hooks: HookTrace[] };

type Phase = "before" | "operation" | "after";

export class OperationObservation {
  private readonly span: Span;
  private readonly spanContext: Context;
  private readonly t0 = performance.now();
  private operationId: string | null = null;
  private revision = 0;
  private phase: Phase = "operation";

  constructor(private readonly observer: Observer, private readonly subject: Subject) {
    const s = subject;
    const name = s.operation === "tool" ? `execute_tool ${s.call.name}` : "point" in s ? `sluice ${s.point}` : `${s.operation === "chat" ? "chat" : "embeddings"} ${s.model}`;
    const attributes = {
      "sluice.operation": s.operation,
      "sluice.space_id": s.ctx.spaceId,
      "sluice.instance_id": s.ctx.instanceId ?? "main",
      ...(s.ctx.runId ? { "sluice.run_id": s.ctx.runId } : {}),
      ...(s.operation === "tool" ? { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": s.call.name, "gen_ai.tool.call.id": s.call.callId, "sluice.tool.id": s.call.toolId } : {}),
      ...(s.operation === "chat" || s.operation === "embedding" ? { "gen_ai.operation.name": s.operation === "chat" ? "chat" : "embeddings", "gen_ai.request.model": s.model } : {}),
    };
    ({ span: this.span, context: this.spanContext } = startBoundarySpan(observer.tracer, name, attributes));
  }

  /**
   * The host as this call sees it: the same object (through its prototype, since some
   * boundaries also read the release and the embedding signature), with `begin` returning
   * stages that report here.
   */
  runner<H extends StageRunner>(host: H): H {
    const runner = Object.create(host) as H;
    runner.begin = (ctx, target, callId) => this.attach(host.begin(ctx, target, callId));
    return runner;
  }

  /** Runs `fn` with the boundary span active, so the service's own spans (in `execute`) nest under it. */
  within<T>(fn: () => T): T {
    return otelContext.with(this.spanContext, fn);
  }

  /** Observes a boundary call's result as it settles; the value passes through unchanged. */
  settle<T>(result: Promise<BoundaryResult<T>>): Promise<BoundaryResult<T>> {
    return result.then((r) => { this.ended(r); return r; }, (err) => { this.crashed(err); throw err; });
  }

  /** Observes a lifecycle call's result as it settles. */
  settleLifecycle(result: Promise<Observed>): Promise<Observed> {
    return result.then((r) => { this.lifecycleEnded(r); return r; }, (err) => { this.crashed(err); throw err; });
  }

  private attach(stages: OperationStages): OperationStages {
    this.operationId = stages.operationId;
    this.revision = stages.revision;
    this.span.setAttributes({ "sluice.operation_id": stages.operationId, "sluice.revision": stages.revision });
    const s = this.subject;
    if (s.operation === "tool" && this.observer.listening) {
      this.observer.publish("tool.invocation.requested", {
        ...this.scope(), operation_id: stages.operationId, revision: stages.revision, call_id: s.call.callId, tool_id: s.call.toolId, tool_name: s.call.name,
        parameters_sha256: digest(s.call.arguments), ...(this.observer.payloads && isRecord(s.call.arguments) ? { parameters: jsonSafe(s.call.arguments) as Record<string, unknown> } : {}),
      });
    }
    const timed = (point: PointName, work: () => Promise<StageResult>): Promise<StageResult> => {
      const started = nowMs();
      return work().then((r) => { this.stage(point, r, started); return r; });
    };
    return {
      ...stages,
      run: (point, payload) => timed(point, () => stages.run(point, payload)),
      runAfter: (point, payload, before) => timed(point, () => stages.runAfter(point, payload, before)),
      diagnostic: (point, payload) => {
        if (point === "operation.error") this.phase = payload.phase as Phase;
        return timed(point, () => stages.diagnostic(point, payload));
      },
      chunk: (payload, holds) => timed("model.chat.chunk", () => stages.chunk(payload, holds)),
      chunks: (payloads, holds) => {
        const started = nowMs();
        return stages.chunks(payloads, holds).then((rs) => { for (const r of rs) this.stage("model.chat.chunk", r, started); return rs; });
      },
    };
  }

  private stage(point: PointName, r: StageResult, startedMs: number): void {
    if (r.reports.length === 0) return;
    recordHookSpans(this.observer.tracer, this.spanContext, point, r.reports, startedMs, { "sluice.operation_id": this.operationId ?? "" });
    for (const step of r.reports) this.observer.metrics.hook(point, step);
    if (!this.observer.listening) return;
    const operation = this.subject.operation;
    for (const step of r.reports) {
      this.observer.publish("hook.executed", {
        ...this.scope(), operation_id: this.operationId!, operation, point, binding_id: step.bindingId, hook_ref: step.hookRef,
        outcome: step.outcome, duration_ms: Math.max(0, stepDurationMs(step)), error_code: step.error?.code ?? null,
        ...(step.fuel !== undefined ? { fuel: step.fuel } : {}),
        call_id: this.subject.operation === "tool" ? this.subject.call.callId : null,
      });
    }
  }

  private ended<T>(r: BoundaryResult<T>): void {
    const outcome = outcomeOf(r);
    const f = r.facts;
    this.observer.metrics.boundary(this.subject.operation, outcome, performance.now() - this.t0);
    endBoundarySpan(this.span, outcome, r.ok ? null : r.error, { "sluice.real_status": f.realStatus, "sluice.called": f.called, "sluice.attempts": f.attempts, ...(f.shortCircuitedBy ? { "sluice.short_circuited_by": f.shortCircuitedBy } : {}) });
    if (!this.observer.listening) return;
    const s = this.subject;
    if (s.operation === "tool") {
      const ids = { ...this.scope(), operation_id: f.operationId, call_id: s.call.callId, tool_id: s.call.toolId, tool_name: s.call.name };
      const common = { called: f.called, real_status: f.realStatus, attempts: f.attempts, duration_ms: Math.max(0, f.durationMs) };
      if (r.ok) {
        const view = (r.output as unknown as ToolOutput).view;
        this.observer.publish("tool.invocation.completed", {
          ...ids, ...common, outcome: outcome as "succeeded" | "short_circuited", short_circuited_by: f.shortCircuitedBy ?? null,
          result_sha256: digest(view ?? null), ...(this.observer.payloads ? { result: jsonSafe(view) ?? null } : {}),
        });
      } else {
        this.observer.publish("tool.invocation.failed", { ...ids, ...common, outcome: outcome as "failed" | "rejected" | "blocked" | "cancelled", phase: this.phase, ...errorFields(r.error) });
      }
    } else if (!r.ok) {
      // operationId is null when the call was refused before it began (an embedding signature mismatch).
      this.observer.publish("agent.error", { ...this.scope(), operation_id: this.operationId, operation: s.operation, phase: this.operationId === null ? "before" : this.phase, ...errorFields(r.error) });
    }
  }

  private lifecycleEnded(r: Observed): void {
    const s = this.subject;
    if (s.operation !== "run" && s.operation !== "subtask") return;
    const outcome = r.ok ? "succeeded" : r.error.code === "HOOK_REJECTED" ? "rejected" : "failed";
    this.observer.metrics.boundary(s.operation, outcome, performance.now() - this.t0);
    endBoundarySpan(this.span, outcome, r.ok ? null : r.error);
    if (!this.observer.listening) return;
    const p = s.payload;
    const starting = s.point === "run.start" || s.point === "subtask.start";
    // The lifecycle payload was validated before the stage ran: with an operation id, its fields are sound.
    if (this.operationId !== null && (r.ok || !starting)) {
      const agent: EventFields<"agent.started"> = {
        space_id: s.ctx.spaceId, run_id: String(p.run_id), instance_id: String(p.instance_id),
        parent_instance_id: typeof p.parent_instance_id === "string" ? p.parent_instance_id : null, actor_id: s.ctx.actorId ?? null,
        operation_id: this.operationId, revision: this.revision,
      };
      if (starting) this.observer.publish("agent.started", { ...agent, ...(this.observer.payloads && typeof p.task === "string" ? { task: p.task } : {}) });
      else this.observer.publish("agent.stopped", { ...agent, status: p.status as "succeeded" | "failed" | "cancelled" });
    }
    if (!r.ok) {
      this.observer.publish("agent.error", { ...this.scope(), operation_id: this.operationId, operation: s.operation, phase: "lifecycle", ...errorFields(r.error) });
    }
  }

  // Not a result: a bug below (or an invalid event in "throw" mode). The span still ends.
  private crashed(err: unknown): void {
    const code = typeof (err as { code?: unknown })?.code === "string" ? String((err as { code: string }).code) : "INTERNAL_ERROR";
    endBoundarySpan(this.span, "failed", { code, message: (err as Error)?.message ?? String(err) });
    this.observer.metrics.boundary(this.subject.operation, "failed", performance.now() - this.t0);
  }

  private scope(): { space_id: string; run_id: string | null; instance_id: string } {
    const s = this.subject;
    // A lifecycle call names its run and instance in its payload; the context may not.
    const named = s.operation === "run" || s.operation === "subtask" ? s.payload : {};
    const text = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
    return { space_id: s.ctx.spaceId, run_id: text(named.run_id) ?? text(s.ctx.runId) ?? null, instance_id: text(named.instance_id) ?? text(s.ctx.instanceId) ?? "main" };
  }
}

function outcomeOf(r: BoundaryResult<unknown>): "succeeded" | "short_circuited" | "failed" | "rejected" | "blocked" | "cancelled" {
  if (r.ok) return r.facts.shortCircuitedBy ? "short_circuited" : "succeeded";
  switch (r.error.code) {
    case "HOOK_REJECTED": return "rejected";
    case "HOOK_BLOCKED": return "blocked";
    case "CALL_CANCELLED":
    case "DEADLINE_EXCEEDED": return "cancelled";
    default: return "failed";
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function errorFields(error: SluiceError) {
  return { error_code: error.code, error_type: errorTypeOf(error.code), message: error.message, details: (jsonSafe(error.details) ?? {}) as Record<string, unknown> };
}
