/**
 * The host's one observability seam: events (validated, to in-process listeners), spans
 * (OpenTelemetry API) and metrics (prom-client) all come from here, so the boundary flow
 * itself stays free of them. The host wraps each call in an {@link OperationObservation}.
 */
import type { Tracer } from "@opentelemetry/api";
import type { Registry } from "prom-client";
import type { EventFields, EventType } from "../../abi/events/index.js";
import type { Release } from "../pipeline/release.js";
import { defaultTracer } from "../telemetry/tracing.js";
import { metricsFor, type PoolStats, type SluiceMetrics } from "../telemetry/metrics.js";
import { EventBus, type EventListener, type InvalidEventPolicy } from "./bus.js";
import { OperationObservation, type Observed, type Subject } from "./operation-observation.js";

export interface ObserverOptions {
  /** Spans go here; defaults to the global tracer provider's "sluice" tracer (a no-op without an SDK). */
  tracer?: Tracer;
  /** Metrics go here; defaults to a new Registry per observer. Share one to aggregate hosts. */
  registry?: Registry;
  /**
   * Put tool arguments, tool results and run tasks into events in plain text. Off by
   * default: events carry SHA-256 digests instead (seed 000: audits hold digests, not data).
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
  private lastRevision: number | null = null;

  constructor(options: ObserverOptions = {}) {
    this.tracer = options.tracer ?? defaultTracer();
    this.metrics = metricsFor(options.registry);
    this.payloads = options.payloads ?? false;
    this.bus = new EventBus({
      ...(options.invalidEvents ? { invalidEvents: options.invalidEvents } : {}),
      ...(options.report ? { report: options.report } : {}),
      onInvalid: (type) => this.metrics.eventsInvalid.inc({ type }),
      onListenerError: (type) => this.metrics.listenerErrors.inc({ type }),
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

  /** True when events would reach someone: callers skip building them otherwise. */
  get listening(): boolean {
    return this.bus.active;
  }

  /** Starts observing one boundary or lifecycle call. */
  operation(subject: Subject): OperationObservation {
    return new OperationObservation(this, subject);
  }

  releaseActivated(release: Release): void {
    this.metrics.releaseRevision.set(release.revision);
    const previous = this.lastRevision;
    this.lastRevision = release.revision;
    if (!this.listening) return;
    this.publish("release.activated", {
      revision: release.revision, previous_revision: previous, order_mode: release.orderMode,
      bindings: release.bindings.map((b) => ({ binding_id: b.id, hook_ref: b.hookRef, point: b.point, enabled: b.enabled })),
    });
  }

  /** Turns the host's quarantine transitions into `plugin.quarantined` / `plugin.quarantine_lifted` events. */
  quarantine(event: QuarantineTransition, bindings: readonly { id: string; hookRef: string }[]): void {
    if (!this.listening) return;
    const iso = (ms: number) => new Date(ms).toISOString();
    if (event.type === "plugin.quarantined") {
      const q = event.data;
      this.publish("plugin.quarantined", {
        plugin_ref: q.ref, reason: q.lastError.message, error_code: q.lastError.code, failures: q.failures, since: iso(q.since),
        until: q.until === null ? null : iso(q.until), binding_ids: bindings.filter((b) => b.hookRef === q.ref).map((b) => b.id),
      });
    } else {
      this.publish("plugin.quarantine_lifted", { plugin_ref: event.data.ref, by: event.data.by, since: iso(event.data.entry.since) });
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

/** A quarantine transition, as host/reliability announces it. */
export type QuarantineTransition =
  | { type: "plugin.quarantined"; data: { ref: string; since: number; until: number | null; failures: number; lastError: { code: string; message: string } } }
  | { type: "plugin.quarantine_lifted"; data: { ref: string; by: "operator" | "cooldown"; entry: { since: number } } };
