/**
 * Observes one boundary or lifecycle call from the outside: it wraps the call's stages to
 * see every StageResult as it completes (hook events, hook spans, hook metrics) and the
 * call's returned value to see how it ended (tool / agent events, the boundary span and
 * metrics). The boundary code itself never calls it.
 */
import { context as otelContext, type Context, type Span, type Tracer } from "@opentelemetry/api";
import type { EventFields, EventType } from "../../abi/events/index.js";
import type { SluiceError } from "../errors/sluice-error.js";
import type { PointName } from "../pipeline/points.js";
import type { StageResult } from "../pipeline/run-steps.js";
import type { OperationStages } from "../engine/stages.js";
import type { BoundaryResult, CallContext, HookTrace } from "../engine/call-types.js";
import type { ToolCall, ToolOutput } from "../boundary/tool.js";
import type { LifecyclePoint } from "../boundary/lifecycle.js";
import type { ChatResponse } from "../boundary/chat.js";
import { usageView } from "../pipeline/usage.js";
import type { EmbedOutput } from "../boundary/embed.js";
import type { SluiceMetrics } from "../telemetry/metrics.js";
import { endBoundarySpan, nowMs, recordHookSpans, startBoundarySpan } from "../telemetry/tracing.js";
import { stepDurationMs } from "../telemetry/step-duration.js";
import { eventError, eventMessage } from "./event-error.js";
import { jsonSafe, type ContentDigest } from "./json-safe.js";
import { withChanges, withKeys } from "../objects/with-keys.js";

/**
 * What an observation reports to: the observer, seen from below (it imports this file,
 * never the other way round).
 */
export interface ObservationSink {
  readonly tracer: Tracer;
  readonly metrics: SluiceMetrics;
  readonly payloads: boolean;
  readonly listening: boolean;
  /** Whether an event of `type` would reach anyone: an event nobody hears is never built (its digests cost). */
  listens(type: EventType): boolean;
  publish<T extends EventType>(type: T, fields: EventFields<T>): void;
}

/** What is being called. */
export type Subject =
  | { operation: "chat"; ctx: CallContext; model: string; streamed?: boolean }
  | { operation: "embedding"; ctx: CallContext; model: string }
  /** `awaits`: the call's caller runs it (host.toolBefore): an answer that leaves it awaiting its result is not its completion. */
  | { operation: "tool"; ctx: CallContext; call: ToolCall; awaits?: boolean }
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
  private requested = false;

  /** `hostId` names the host in every event: one observer may serve several hosts. */
  constructor(private readonly observer: ObservationSink, private readonly subject: Subject, private readonly hostId: string, private readonly digest: ContentDigest) {
    const s = subject;
    // The call is not checked yet: read its fields as what they may be, not as what they should be.
    const call = s.operation === "tool" ? toolIds(s.call) : null;
    const name = s.operation === "tool" ? `execute_tool ${call?.tool_name ?? ""}` : "point" in s ? `sluice ${s.point}` : `${s.operation === "chat" ? "chat" : "embeddings"} ${text(s.model) ?? ""}`;
    const attributes = {
      "sluice.operation": s.operation,
      "sluice.host_id": hostId,
      ...(text(s.ctx?.spaceId) ? { "sluice.space_id": s.ctx.spaceId } : {}),
      "sluice.instance_id": text(s.ctx?.instanceId) ?? "main",
      ...(text(s.ctx?.runId) ? { "sluice.run_id": s.ctx.runId } : {}),
      ...(call ? { "gen_ai.operation.name": "execute_tool", ...defined({ "gen_ai.tool.name": call.tool_name, "gen_ai.tool.call.id": call.call_id, "sluice.tool.id": call.tool_id }) } : {}),
      ...(s.operation === "chat" || s.operation === "embedding" ? { "gen_ai.operation.name": s.operation === "chat" ? "chat" : "embeddings", ...defined({ "gen_ai.request.model": text(s.model) }) } : {}),
    };
    ({ span: this.span, context: this.spanContext } = startBoundarySpan(observer.tracer, name, attributes));
  }

  /** The wrapper that shows this call's stages to the observation (host/engine/compose.ts). */
  readonly wrap = (stages: OperationStages): OperationStages => this.attach(stages);

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
    const timed = (point: PointName, work: () => Promise<StageResult>): Promise<StageResult> => {
      const started = nowMs();
      return work().then((r) => { this.stage(point, r, started); return r; });
    };
    return withChanges(stages, {
      run: (point, payload) => {
        // The before stage runs only on a payload the boundary has checked: the call's fields are sound here, never before.
        if (point === "tool.before") this.toolRequested(stages);
        return timed(point, () => stages.run(point, payload));
      },
      runAfter: (point, payload, before, options) => timed(point, () => stages.runAfter(point, payload, before, options)),
      diagnostic: (point, payload) => {
        if (point === "operation.error") this.phase = payload.phase as Phase;
        return timed(point, () => stages.diagnostic(point, payload));
      },
      chunk: (payload, holds) => timed("model.chat.chunk", () => stages.chunk(payload, holds)),
      chunks: (payloads, holds) => {
        const started = nowMs();
        return stages.chunks(payloads, holds).then((rs) => { for (const r of rs) this.stage("model.chat.chunk", r, started); return rs; });
      },
    });
  }

  private toolRequested(stages: OperationStages): void {
    const s = this.subject;
    if (s.operation !== "tool" || this.requested || !this.observer.listens("tool.invocation.requested")) return;
    this.requested = true;
    this.observer.publish("tool.invocation.requested", withKeys(this.scope(), { operation_id: stages.operationId, revision: stages.revision, call_id: s.call.callId, tool_id: s.call.toolId, tool_name: s.call.name,
      parameters_sha256: this.digest(s.call.arguments), ...(this.observer.payloads && isRecord(s.call.arguments) ? { parameters: jsonSafe(s.call.arguments) as Record<string, unknown> } : {}),
    }));
  }

  private stage(point: PointName, r: StageResult, startedMs: number): void {
    if (r.reports.length === 0) return;
    recordHookSpans(this.observer.tracer, this.spanContext, point, r.reports, startedMs, { "sluice.operation_id": this.operationId ?? "" });
    for (const step of r.reports) this.observer.metrics.hook(point, step);
    if (!this.observer.listens("hook.executed")) return;
    const operation = this.subject.operation;
    for (const step of r.reports) {
      this.observer.publish("hook.executed", withKeys(this.scope(), { operation_id: this.operationId!, operation, point, binding_id: step.bindingId, hook_ref: step.hookRef,
        outcome: step.outcome, duration_ms: Math.max(0, stepDurationMs(step)), error_code: step.error?.code ?? null,
        ...(step.fuel !== undefined ? { fuel: step.fuel } : {}),
        call_id: this.subject.operation === "tool" ? toolIds(this.subject.call).call_id : null,
      }));
    }
  }

  private ended<T>(r: BoundaryResult<T>): void {
    const outcome = outcomeOf(r);
    const f = r.facts;
    this.observer.metrics.boundary(this.subject.operation, outcome, performance.now() - this.t0);
    endBoundarySpan(this.span, outcome, this.spanError(r.ok ? null : r.error), { "sluice.real_status": f.realStatus, "sluice.called": f.called, "sluice.attempts": f.attempts, ...(f.shortCircuitedBy ? { "sluice.short_circuited_by": f.shortCircuitedBy } : {}) });
    const s = this.subject;
    if (!this.observer.listening || (s.operation === "tool" && s.awaits && r.ok && f.realStatus === "running")) return;
    const payloads = this.observer.payloads;
    // Null when the call was refused before it began (invalid context, embedding signature mismatch).
    const operationId = this.operationId;
    const type = s.operation === "tool" ? (r.ok ? "tool.invocation.completed" : "tool.invocation.failed") : !r.ok ? "agent.error" : s.operation === "chat" ? "model.chat.completed" : "model.embedding.completed";
    if (!this.observer.listens(type)) return;
    if (s.operation === "tool") {
      const common = { called: f.called, real_status: f.realStatus, attempts: f.attempts, duration_ms: Math.max(0, f.durationMs) };
      if (r.ok) {
        const view = (r.output as unknown as ToolOutput).view;
        this.observer.publish("tool.invocation.completed", withKeys(this.scope(), { operation_id: f.operationId, call_id: s.call.callId, tool_id: s.call.toolId, tool_name: s.call.name, ...common,
          outcome: outcome as "succeeded" | "short_circuited", short_circuited_by: f.shortCircuitedBy ?? null,
          result_sha256: this.digest(view ?? null), ...(payloads ? { result: jsonSafe(view) ?? null } : {}),
        }));
      } else {
        this.observer.publish("tool.invocation.failed", withKeys(this.scope(), { operation_id: operationId, ...toolIds(s.call), ...common,
          outcome: outcome as "failed" | "rejected" | "blocked" | "cancelled" | "asked", phase: operationId === null ? "before" : this.phase, ...eventError(r.error, payloads),
        }));
      }
    } else if (!r.ok) {
      this.observer.publish("agent.error", withKeys(this.scope(), { operation_id: operationId, operation: s.operation, phase: operationId === null ? "before" : this.phase, ...eventError(r.error, payloads) }));
    } else if (s.operation === "chat" || s.operation === "embedding") {
      const completion = withKeys(this.scope(), { operation_id: f.operationId, revision: f.revision, model: s.model, called: f.called, real_status: f.realStatus,
        attempts: f.attempts, duration_ms: Math.max(0, f.durationMs),
      });
      if (s.operation === "chat") {
        const answer = r.output as unknown as ChatResponse;
        this.observer.publish("model.chat.completed", withKeys(completion, { outcome: outcome as "succeeded" | "short_circuited", short_circuited_by: f.shortCircuitedBy ?? null,
          purpose: s.ctx.purpose === "compaction" || s.ctx.purpose === "completion" ? s.ctx.purpose : "action", streamed: s.streamed === true,
          finish_reason: String(answer.finish_reason), tool_call_count: Array.isArray(answer.tool_calls) ? answer.tool_calls.length : 0,
          usage: usageView(answer.usage),
          content_sha256: this.digest(answer.content ?? null),
          refusal_sha256: typeof answer.refusal === "string" ? this.digest(answer.refusal) : null,
          reasoning_sha256: typeof answer.reasoning_content === "string" ? this.digest(answer.reasoning_content) : null, ...(payloads ? { content: typeof answer.content === "string" ? answer.content : null } : {}),
        }));
      } else {
        const out = r.output as unknown as EmbedOutput;
        this.observer.publish("model.embedding.completed", withKeys(completion, { outcome: "succeeded", count: out.vectors.length, dimension: out.dimension, signature: out.signature }));
      }
    }
  }

  private lifecycleEnded(r: Observed): void {
    const s = this.subject;
    if (s.operation !== "run" && s.operation !== "subtask") return;
    const outcome = r.ok ? "succeeded" : r.error.code === "HOOK_REJECTED" ? "rejected" : "failed";
    this.observer.metrics.boundary(s.operation, outcome, performance.now() - this.t0);
    endBoundarySpan(this.span, outcome, this.spanError(r.ok ? null : r.error));
    if (!this.observer.listening) return;
    const p = s.payload;
    const starting = s.point === "run.start" || s.point === "subtask.start";
    // The lifecycle payload was validated before the stage ran: with an operation id, its fields are sound.
    if (this.operationId !== null && (r.ok || !starting)) {
      const agent: EventFields<"agent.started"> = {
        host_id: this.hostId, space_id: s.ctx.spaceId, run_id: String(p.run_id), instance_id: String(p.instance_id),
        parent_instance_id: typeof p.parent_instance_id === "string" ? p.parent_instance_id : null, actor_id: s.ctx.actorId ?? null,
        operation_id: this.operationId, revision: this.revision,
      };
      if (starting) this.observer.publish("agent.started", withKeys(agent, { ...(this.observer.payloads && typeof p.task === "string" ? { task: p.task } : {}) }));
      else this.observer.publish("agent.stopped", withKeys(agent, { status: p.status as "succeeded" | "failed" | "cancelled" }));
    }
    if (!r.ok) {
      this.observer.publish("agent.error", withKeys(this.scope(), { operation_id: this.operationId, operation: s.operation, phase: "lifecycle", ...eventError(r.error, this.observer.payloads) }));
    }
  }

  // Spans leave the process like events do: the same rule for error text.
  private spanError(error: SluiceError | null): { code: string; message: string } | null {
    return error && { code: error.code, message: eventMessage(error, this.observer.payloads) };
  }

  // Not a result: a bug below (or an invalid event in "throw" mode). The span still ends.
  private crashed(err: unknown): void {
    const code = typeof (err as { code?: unknown })?.code === "string" ? String((err as { code: string }).code) : "INTERNAL_ERROR";
    endBoundarySpan(this.span, "failed", { code, message: (err as Error)?.message ?? String(err) });
    this.observer.metrics.boundary(this.subject.operation, "failed", performance.now() - this.t0);
  }

  /**
   * Who sent the event and for whom. The space is exactly the caller's (a refused call with
   * no valid space names none); a lifecycle call names its run and instance in its
   * payload, which the context may not.
   */
  private scope(): { host_id: string; space_id: string; run_id: string | null; instance_id: string } {
    const s = this.subject;
    const named = s.operation === "run" || s.operation === "subtask" ? (isRecord(s.payload) ? s.payload : {}) : {};
    const ctx: Partial<CallContext> = isRecord(s.ctx) ? s.ctx : {};
    // Typed as a string for the events that only valid calls produce; the refusal events' schemas allow null.
    const space = (typeof ctx.spaceId === "string" ? ctx.spaceId : null) as string;
    return { host_id: this.hostId, space_id: space, run_id: text(named.run_id) ?? text(ctx.runId) ?? null, instance_id: text(named.instance_id) ?? text(ctx.instanceId) ?? "main" };
  }
}

function text(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** A tool call's ids as events may carry them: null where the caller gave no string. */
function toolIds(call: ToolCall): { call_id: string | null; tool_id: string | null; tool_name: string | null } {
  const c: Partial<ToolCall> = isRecord(call) ? call : {};
  const id = (v: unknown) => (typeof v === "string" ? v : null);
  return { call_id: id(c.callId), tool_id: id(c.toolId), tool_name: id(c.name) };
}

function defined<T extends Record<string, unknown>>(o: T): Record<string, string> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => typeof v === "string")) as Record<string, string>;
}

function outcomeOf(r: BoundaryResult<unknown>): "succeeded" | "short_circuited" | "failed" | "rejected" | "blocked" | "cancelled" | "asked" {
  if (r.ok) return r.facts.shortCircuitedBy ? "short_circuited" : "succeeded";
  switch (r.error.code) {
    case "HOOK_REJECTED": return "rejected";
    case "HOOK_BLOCKED": return "blocked";
    case "HOOK_ASKED": return "asked";
    case "CALL_CANCELLED":
    case "DEADLINE_EXCEEDED": return "cancelled";
    default: return "failed";
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
