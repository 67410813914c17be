/**
 * OpenTelemetry spans: one per boundary call, a child per hook execution. Only the API is
 * used, so this is a no-op until the service installs an SDK. Guest hooks run in worker
 * threads; their spans are made here from the step reports, each hook starting where the
 * one before it ended (the worker runs a stage's hooks back to back).
 */
import { context as otelContext, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from "@opentelemetry/api";
import type { StepReport } from "../pipeline/run-steps.js";
import { stepDurationMs } from "./step-duration.js";

/** The instrumentation scope name of Sluice's spans. */
export const TRACER_NAME = "sluice";

export function defaultTracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}

/** Wall-clock milliseconds with sub-millisecond precision (what the OpenTelemetry API accepts as a time). */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

/** Starts a boundary call's span under the caller's active span; returns it and the context its hooks nest in. */
export function startBoundarySpan(tracer: Tracer, name: string, attributes: Attributes): { span: Span; context: Context } {
  const parent = otelContext.active();
  const span = tracer.startSpan(name, { kind: SpanKind.INTERNAL, attributes }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

/** One span per step of a stage that began at `startMs`. */
export function recordHookSpans(tracer: Tracer, parent: Context, point: string, reports: readonly StepReport[], startMs: number, attributes: Attributes): void {
  // A boundary span that does not record (no SDK installed, or not sampled) has no use for
  // children a sampler would drop as well: a stream would otherwise build one per chunk hook.
  if (trace.getSpan(parent)?.isRecording() !== true) return;
  let at = startMs;
  for (const step of reports) {
    const span = tracer.startSpan(`sluice.hook ${point}`, {
      kind: SpanKind.INTERNAL,
      startTime: at,
      attributes: {
        ...attributes,
        "sluice.hook.point": point,
        "sluice.hook.binding_id": step.bindingId,
        "sluice.hook.ref": step.hookRef,
        "sluice.hook.outcome": step.outcome,
        ...(step.error ? { "error.type": step.error.code } : {}),
      },
    }, parent);
    if (step.error) span.setStatus({ code: SpanStatusCode.ERROR, message: step.error.message });
    at += stepDurationMs(step);
    span.end(at);
  }
}

/** Ends a boundary span with its outcome; an error code marks it failed. */
export function endBoundarySpan(span: Span, outcome: string, error: { code: string; message: string } | null, attributes: Attributes = {}): void {
  span.setAttributes({ ...attributes, "sluice.outcome": outcome });
  if (error) {
    span.setAttribute("error.type", error.code);
    span.setStatus({ code: SpanStatusCode.ERROR, message: error.message });
  }
  span.end();
}
