/**
 * Prometheus metrics of a host (prom-client). Each host gets its own Registry unless it is
 * given one; hosts given the same Registry share one set of metrics (prom-client refuses
 * a name registered twice) and the pool gauges add up their sandboxes.
 */
import type { Counter, Gauge, Histogram, Registry } from "prom-client";
import { createRequire } from "node:module";
import type { StepReport } from "../pipeline/run-steps.js";
import { stepDurationMs } from "./step-duration.js";

/** What the pool gauges read: the host's Sandbox fits. */
export interface PoolStats {
  readonly threadCount: number;
  readonly queueSize: number;
}

// Codes that mean the guest itself broke (as opposed to timing out or being refused).
const TRAPS = new Set(["GUEST_TRAP", "GUEST_STACK_OVERFLOW", "GUEST_MEMORY_LIMIT", "GUEST_ABORTED", "GUEST_FUEL_EXHAUSTED", "WORKER_CRASHED"]);

/** The children of one hook call's series (prom-client's `labels()`). */
interface HookSeries { duration: { observe(v: number): void }; fuel: { observe(v: number): void }; outcome: { inc(): void } }

/** The host's metrics: names and labels are listed in abi/events/README.md ("Metrics"). */
export class SluiceMetrics {
  readonly hookDuration: Histogram<"point" | "binding">;
  readonly hookFuel: Histogram<"point" | "binding">;
  readonly hookOutcomes: Counter<"point" | "binding" | "outcome">;
  readonly hookTimeouts: Counter<"point" | "binding">;
  readonly hookTraps: Counter<"point" | "binding" | "code">;
  readonly boundaryDuration: Histogram<"operation" | "outcome">;
  readonly boundaryCalls: Counter<"operation" | "outcome">;
  readonly eventsEmitted: Counter<"type">;
  readonly eventsInvalid: Counter<"type">;
  readonly listenerErrors: Counter<"type">;
  readonly releaseRevision: Gauge<"host">;
  private readonly pools = new Set<PoolStats>();

  constructor(readonly registry: Registry) {
    const { Counter, Gauge, Histogram } = promClient();
    const registers = [registry];
    const pools = this.pools;
    const sum = (read: (p: PoolStats) => number) => [...pools].reduce((n, p) => n + read(p), 0);
    this.hookDuration = new Histogram({
      name: "sluice_hook_duration_seconds", help: "Run time of one hook, by point and binding.", labelNames: ["point", "binding"], registers,
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    });
    this.hookFuel = new Histogram({
      name: "sluice_hook_fuel", help: "Fuel one guest hook used (abi/README.md §11), by point and binding; in-process hooks are not metered.", labelNames: ["point", "binding"], registers,
      buckets: [1e3, 1e4, 1e5, 3e5, 1e6, 3e6, 1e7, 3e7, 1e8, 1e9, 1e10],
    });
    this.hookOutcomes = new Counter({ name: "sluice_hook_outcomes_total", help: "Hook executions by outcome (continue, patch_*, reject, ..., failed).", labelNames: ["point", "binding", "outcome"], registers });
    this.hookTimeouts = new Counter({ name: "sluice_hook_timeouts_total", help: "Hooks that ran past their time limit.", labelNames: ["point", "binding"], registers });
    this.hookTraps = new Counter({ name: "sluice_hook_traps_total", help: "Guests that trapped, overflowed, ran out of memory, aborted or crashed their worker.", labelNames: ["point", "binding", "code"], registers });
    this.boundaryDuration = new Histogram({
      name: "sluice_boundary_duration_seconds", help: "Whole boundary calls (hooks and the operation), by operation and outcome.", labelNames: ["operation", "outcome"], registers,
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    });
    this.boundaryCalls = new Counter({ name: "sluice_boundary_calls_total", help: "Boundary calls by operation and outcome.", labelNames: ["operation", "outcome"], registers });
    this.eventsEmitted = new Counter({ name: "sluice_events_emitted_total", help: "Events that passed their schema and went to listeners.", labelNames: ["type"], registers });
    this.eventsInvalid = new Counter({ name: "sluice_events_invalid_total", help: "Events that failed their schema (a host bug) and were dropped.", labelNames: ["type"], registers });
    this.listenerErrors = new Counter({ name: "sluice_event_listener_errors_total", help: "Event listeners that threw or rejected (ignored).", labelNames: ["type"], registers });
    // Per host: hosts sharing an observer (or a registry) each have their own active release.
    this.releaseRevision = new Gauge({ name: "sluice_release_revision", help: "The revision of the active release, per host (host_id).", labelNames: ["host"], registers });
    new Gauge({ name: "sluice_pool_threads", help: "Sandbox worker threads alive.", registers, collect() { this.set(sum((p) => p.threadCount)); } });
    new Gauge({ name: "sluice_pool_queue_depth", help: "Guest tasks waiting for a worker.", registers, collect() { this.set(sum((p) => p.queueSize)); } });
  }

  /** Adds a sandbox to the pool gauges; returns the function that removes it (on close). */
  attachPool(pool: PoolStats): () => void {
    this.pools.add(pool);
    return () => { this.pools.delete(pool); };
  }

  hook(point: string, step: StepReport): void {
    const of = this.hookSeries(point, step.bindingId, step.outcome);
    of.duration.observe(stepDurationMs(step) / 1000);
    if (step.fuel !== undefined) of.fuel.observe(step.fuel);
    of.outcome.inc();
    const code = step.error?.code;
    if (code === "GUEST_TIMEOUT") this.hookTimeouts.inc({ point, binding: step.bindingId });
    else if (code !== undefined && TRAPS.has(code)) this.hookTraps.inc({ point, binding: step.bindingId, code });
  }

  /**
   * The series one hook call updates, made once per point, binding and outcome: prom-client
   * checks and hashes a labels object on every observe (~1.3 µs a hook call, each chunk of a
   * stream being one), a child made by `labels()` once. As many entries as the series
   * themselves, which prom-client keeps anyway.
   */
  private readonly series = new Map<string, HookSeries>();
  private hookSeries(point: string, binding: string, outcome: string): HookSeries {
    const key = `${point}\u0000${binding}\u0000${outcome}`;
    let of = this.series.get(key);
    if (!of) {
      const labels = { point, binding };
      of = { duration: this.hookDuration.labels(labels), fuel: this.hookFuel.labels(labels), outcome: this.hookOutcomes.labels({ point, binding, outcome }) };
      this.series.set(key, of);
    }
    return of;
  }

  boundary(operation: string, outcome: string, durationMs: number): void {
    this.boundaryCalls.inc({ operation, outcome });
    this.boundaryDuration.observe({ operation, outcome }, durationMs / 1000);
  }
}

const shared = new WeakMap<Registry, SluiceMetrics>();

/** The metrics kept in `registry` (created there on first use). */
export function metricsFor(registry: Registry = new (promClient().Registry)()): SluiceMetrics {
  let m = shared.get(registry);
  if (!m) { m = new SluiceMetrics(registry); shared.set(registry, m); }
  return m;
}

/**
 * A `/metrics` route handler for Fastify (`(request, reply)`) or node:http (`(req, res)`).
 *
 * @example
 * app.get("/metrics", metricsHandler(host.observer.registry));
 */
export function metricsHandler(registry: Registry): (request: unknown, reply: MetricsReply) => Promise<string | void> {
  return async (_request, reply) => {
    const body = await registry.metrics();
    if ("send" in reply && typeof reply.send === "function") {
      reply.header("content-type", registry.contentType);
      return body;
    }
    const res = reply as NodeResponse;
    res.setHeader("content-type", registry.contentType);
    res.end(body);
  };
}

interface FastifyLikeReply { header(name: string, value: string): unknown; send(body: unknown): unknown }
interface NodeResponse { setHeader(name: string, value: string): unknown; end(body: string): unknown }
/** The reply object of either framework. */
export type MetricsReply = FastifyLikeReply | NodeResponse;

// Required when metrics are made, not imported: `import "sluice"` does not load prom-client.
function promClient(): typeof import("prom-client") {
  return createRequire(import.meta.url)("prom-client") as typeof import("prom-client");
}

export type { Registry };
