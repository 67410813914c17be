/**
 * The host's one observability seam: events (validated, to in-process listeners), spans
 * (OpenTelemetry API) and metrics (prom-client) all come from here, so the boundary flow
 * itself stays free of them. The host wraps each call in an {@link OperationObservation}.
 */
import type { Tracer } from "@opentelemetry/api";
import type { Registry } from "prom-client";
import type { EnvelopeField, EventFields, EventType } from "../../abi/events/index.js";
import type { CallContext } from "../engine/call-types.js";
import type { Release } from "../pipeline/release.js";
import type { Checked } from "../pipeline/result.js";
import type { FromSchema } from "../../abi/schema-types.js";
import { defaultTracer } from "../telemetry/tracing.js";
import { metricsFor, type PoolStats, type SluiceMetrics } from "../telemetry/metrics.js";
import { reportFields, reportProblem, type AgentReport } from "./agent-report.js";
import { digest as digestOf, type ContentDigest } from "./json-safe.js";
import { EventBus, type CustomEventListener, type EventListener, type InvalidEventPolicy } from "./bus.js";
import { eventMessage } from "./event-error.js";
import { OperationObservation, type Observed, type Subject } from "./operation-observation.js";

/** Where a host's events, spans and metrics go. */
export interface ObserverOptions {
  /** Spans go here; defaults to the global tracer provider's "sluice" tracer (a no-op without an SDK). */
  tracer?: Tracer;
  /** Metrics go here; defaults to a new Registry per observer. Share one to aggregate hosts. */
  registry?: Registry;
  /**
   * Put tool arguments, tool results, run tasks, answers, thoughts, decision reasons and
   * error texts into events in plain text. Off by default: events carry SHA-256 digests
   * and error codes with their catalogue summary instead (SECURITY.md: audits hold digests,
   * not data).
   */
  payloads?: boolean;
  /** What an event that fails its schema does; see {@link InvalidEventPolicy}. */
  invalidEvents?: InvalidEventPolicy;
  /** Told about dropped invalid events and failing listeners; defaults to console.error. */
  report?: (message: string, cause: unknown) => void;
}

/**
 * Events, spans and metrics of one or more hosts.
 *
 * @example
 * const observer = createObserver();
 * const host = createHost({ observer });
 * observer.on((e) => { if (e.type === "tool.invocation.failed") alert(e.error_code); });
 * app.get("/metrics", metricsHandler(observer.registry));
 */
export class Observer {
  readonly tracer: Tracer;
  readonly metrics: SluiceMetrics;
  readonly payloads: boolean;
  private readonly bus: EventBus;
  /** Per host: one observer may serve several hosts, each with its own releases. */
  private readonly lastRevision = new Map<string, number>();

  constructor(options: ObserverOptions = {}) {
    this.tracer = options.tracer ?? defaultTracer();
    this.metrics = metricsFor(options.registry);
    this.payloads = options.payloads ?? false;
    this.bus = new EventBus({
      onInvalid: (type) => this.metrics.eventsInvalid.inc({ type }),
      onListenerError: (type) => this.metrics.listenerErrors.inc({ type }),
      ...(options.invalidEvents ? { invalidEvents: options.invalidEvents } : {}),
      ...(options.report ? { report: options.report } : {}),
    });
  }

  /** The Prometheus registry to expose at /metrics. */
  get registry(): Registry {
    return this.metrics.registry;
  }

  /** Subscribes to every event, or to `types`. Listeners run later, isolated; returns the unsubscribe function. */
  on(listener: EventListener, types?: readonly EventType[]): () => void {
    return this.bus.on(listener, types);
  }

  /** Resolves when listeners have received (and settled on) every event published so far. */
  flush(timeoutMs?: number): Promise<void> {
    return this.bus.flush(timeoutMs);
  }

  /**
   * Publishes an event from elsewhere in the service (e.g. `plugin.quarantined` from the
   * registry); it is validated like the host's own.
   */
  publish<T extends EventType>(type: T, fields: EventFields<T>): void {
    if (this.bus.publish(type, fields)) this.metrics.eventsEmitted.inc({ type });
  }

  /**
   * Registers a service's own event (abi/events/README.md, "Custom events") and returns its emitter. The schema
   * has its own versioned `$id` and closed objects; a later version of the same type is
   * registered the same way and must only add (EVENT_SCHEMA_INVALID otherwise). Events go
   * through the same bus: validated, frozen, delivered later to `onCustom` listeners.
   *
   * @example
   * const summary = observer.defineEvent(summaryCompletedV1);
   * const sent = summary.emit({ session_id: "s1", summary_text: "..." });
   * if (!sent.ok) log(sent.error.message); // CUSTOM_EVENT_INVALID: the fields fail the schema
   */
  defineEvent<const S extends CustomEventSchema>(schema: S): CustomEventEmitter<S> {
    this.bus.register(schema);
    const type = schema.properties.type.const;
    return {
      type, schemaId: schema.$id,
      emit: (fields) => {
        const sent = this.bus.publishCustom(schema.$id, fields as Record<string, unknown>);
        if (sent.ok && sent.event) this.metrics.eventsEmitted.inc({ type });
        return sent.ok ? { ok: true } : sent;
      },
    };
  }

  /** Subscribes to the service's own events (all, or `types`), isolated like {@link on}. */
  onCustom(listener: CustomEventListener, types?: readonly string[]): () => void {
    return this.bus.onCustom(listener, types);
  }

  /**
   * Turns a report of the service's agent (initialized, thought, decision) into its
   * event. The report is checked first: a wrong one comes back as PAYLOAD_INVALID naming
   * the field and emits nothing. Call it through `host.report`, which checks the context.
   */
  report(ctx: CallContext, report: AgentReport, hostId: string, digest: ContentDigest = digestOf): Checked {
    const problem = reportProblem(report);
    if (problem) return problem;
    if (!this.listening) return { ok: true };
    const scope = { host_id: hostId, space_id: ctx.spaceId, run_id: ctx.runId || null, instance_id: ctx.instanceId || "main" };
    const built = reportFields(report, scope, this.payloads, digest);
    // One call per kind keeps each publish typed against its own schema.
    if (built.type === "agent.initialized") this.publish(built.type, built.fields);
    else if (built.type === "agent.thought") this.publish(built.type, built.fields);
    else this.publish(built.type, built.fields);
    return { ok: true };
  }

  /** True when events would reach someone: callers skip building them otherwise. */
  get listening(): boolean {
    return this.bus.active;
  }

  /** True when an event of `type` would reach someone (a listener of every type, or of this one). */
  listens(type: EventType): boolean {
    return this.bus.wants(type);
  }

  /**
   * Starts observing one boundary or lifecycle call of host `hostId`. `digest` makes the
   * events' `*_sha256` fields: the host passes its keyed digest (HMAC-SHA-256 with the
   * deployment's secret), so a short value (a PIN in tool arguments) cannot be recovered
   * from an event by trying every candidate.
   */
  operation(subject: Subject, hostId: string, digest: ContentDigest = digestOf): OperationObservation {
    return new OperationObservation(this, subject, hostId, digest);
  }

  releaseActivated(release: Release, hostId: string): void {
    this.metrics.releaseRevision.set({ host: hostId }, release.revision);
    const previous = this.lastRevision.get(hostId) ?? null;
    this.lastRevision.set(hostId, release.revision);
    if (!this.listening) return;
    this.publish("release.activated", {
      host_id: hostId, revision: release.revision, previous_revision: previous, order_mode: release.orderMode,
      bindings: release.bindings.map((b) => ({ binding_id: b.id, hook_ref: b.hookRef, point: b.point, enabled: b.enabled })),
    });
  }

  /** Turns the host's quarantine transitions into `plugin.quarantined` / `plugin.quarantine_lifted` events. */
  quarantine(event: QuarantineTransition, bindings: readonly { id: string; hookRef: string }[], hostId: string): void {
    if (!this.listening) return;
    const iso = (ms: number) => new Date(ms).toISOString();
    if (event.type === "plugin.quarantined") {
      const q = event.data;
      this.publish("plugin.quarantined", {
        host_id: hostId, plugin_ref: q.ref, reason: eventMessage(q.lastError, this.payloads), error_code: q.lastError.code, failures: q.failures, since: iso(q.since),
        until: q.until === null ? null : iso(q.until), binding_ids: bindings.filter((b) => b.hookRef === q.ref).map((b) => b.id),
      });
    } else {
      this.publish("plugin.quarantine_lifted", { host_id: hostId, plugin_ref: event.data.ref, by: event.data.by, since: iso(event.data.entry.since) });
    }
  }

  /** Adds a sandbox to the pool gauges; returns the function that removes it. */
  attachPool(pool: PoolStats): () => void {
    return this.metrics.attachPool(pool);
  }
}

/** Creates an observer; pass it to several hosts to share listeners and metrics. */
export function createObserver(options: ObserverOptions = {}): Observer {
  return new Observer(options);
}

export type { Observed, Subject };

/** The shape a service's own event schema has (the full rules: EventRegistry.register). */
export interface CustomEventSchema {
  readonly $schema: "https://json-schema.org/draft/2020-12/schema";
  readonly $id: string;
  readonly type: "object";
  readonly additionalProperties: false;
  readonly required: readonly string[];
  readonly properties: { readonly type: { readonly const: string }; readonly [field: string]: unknown };
  readonly [keyword: string]: unknown;
}

/** The fields a service gives when it emits its own event; the envelope is filled in. */
export type CustomEventFields<S> = FromSchema<S> extends infer E ? (E extends object ? Omit<E, EnvelopeField> : Record<string, unknown>) : never;

/** Emits one registered event type under its schema. */
export interface CustomEventEmitter<S extends CustomEventSchema> {
  readonly type: S["properties"]["type"]["const"];
  readonly schemaId: S["$id"];
  /** Validates and dispatches; CUSTOM_EVENT_INVALID (nothing dispatched) when the fields fail the schema. */
  emit(fields: CustomEventFields<S>): Checked;
}

/** A quarantine transition, as host/reliability announces it. */
export type QuarantineTransition =
  | { type: "plugin.quarantined"; data: { ref: string; since: number; until: number | null; failures: number; lastError: { code: string; message: string } } }
  | { type: "plugin.quarantine_lifted"; data: { ref: string; by: "operator" | "cooldown"; entry: { since: number } } };
