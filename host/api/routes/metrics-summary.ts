/**
 * `GET /api/v1/metrics/summary`: the figures the host already keeps (telemetry/metrics.ts)
 * as JSON for the console: per binding, calls, p50/p99 run time and fuel (estimated from
 * the histogram buckets, as Prometheus' histogram_quantile does), and the boundary calls by
 * outcome. Counters are totals since the process started; a client takes rates from two reads.
 */
import type { FastifyInstance } from "fastify";
import type { Registry as PromRegistry } from "prom-client";
import { DEFAULT_LIMITS } from "../../sandbox/limits.js";
import { errorResponses } from "../schemas.js";
import { VIEWER } from "../roles.js";

const estimate = { type: ["number", "null"] } as const;
const SUMMARY = {
  type: "object", additionalProperties: false, required: ["at", "calls", "errors", "boundary", "hooks", "default_fuel_budget"],
  properties: {
    at: { type: "string", format: "date-time", description: "When the figures were read: a client takes rates from two reads." },
    calls: { type: "number", description: "Boundary calls since the process started." },
    errors: { type: "number", description: "Boundary calls that failed, since the process started." },
    boundary: {
      type: "array",
      items: { type: "object", additionalProperties: false, required: ["operation", "outcome", "calls"], properties: { operation: { type: "string" }, outcome: { type: "string" }, calls: { type: "number" } } },
    },
    hooks: {
      type: "array", description: "Per point and binding; run time and fuel estimated from the histogram buckets.",
      items: {
        type: "object", additionalProperties: false, required: ["point", "binding", "calls", "failed", "p50_ms", "p99_ms", "fuel_p50", "fuel_p99"],
        properties: { point: { type: "string" }, binding: { type: "string" }, calls: { type: "number" }, failed: { type: "number" }, p50_ms: estimate, p99_ms: estimate, fuel_p50: estimate, fuel_p99: estimate },
      },
    },
    default_fuel_budget: { type: "number", description: "The fuel budget of a plugin whose manifest names no limits.fuel." },
  },
} as const;

interface Sample { labels: Record<string, string | number>; value: number; metricName?: string }
interface Metric { name: string; values: Sample[] }

/** The q-quantile of a cumulative histogram (buckets sorted by upper bound), linearly interpolated within its bucket. */
export function bucketQuantile(q: number, buckets: readonly { le: number; count: number }[]): number | null {
  const total = buckets.at(-1)?.count ?? 0;
  if (total === 0) return null;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const b of buckets) {
    if (b.count >= rank) {
      // The +Inf bucket has no upper bound: answer the largest finite one, as Prometheus does.
      if (!Number.isFinite(b.le)) return lower;
      const inBucket = b.count - below;
      return inBucket === 0 ? b.le : lower + (b.le - lower) * ((rank - below) / inBucket);
    }
    lower = b.le;
    below = b.count;
  }
  return lower;
}

interface Series { point: string; binding: string; count: number; sum: number; buckets: { le: number; count: number }[] }

function histogram(metric: Metric | undefined): Map<string, Series> {
  const out = new Map<string, Series>();
  for (const s of metric?.values ?? []) {
    const point = String(s.labels.point ?? "");
    const binding = String(s.labels.binding ?? "");
    const key = `${point}\u0000${binding}`;
    const series = out.get(key) ?? { point, binding, count: 0, sum: 0, buckets: [] };
    out.set(key, series);
    if (s.metricName?.endsWith("_bucket")) series.buckets.push({ le: s.labels.le === "+Inf" ? Infinity : Number(s.labels.le), count: s.value });
    else if (s.metricName?.endsWith("_count")) series.count = s.value;
    else if (s.metricName?.endsWith("_sum")) series.sum = s.value;
  }
  for (const s of out.values()) s.buckets.sort((a, b) => a.le - b.le);
  return out;
}

export async function metricsSummary(prom: PromRegistry): Promise<Record<string, unknown>> {
  const metrics = (await prom.getMetricsAsJSON()) as unknown as Metric[];
  const byName = new Map(metrics.map((m) => [m.name, m]));
  const durations = histogram(byName.get("sluice_hook_duration_seconds"));
  const fuel = histogram(byName.get("sluice_hook_fuel"));
  const failed = new Map<string, number>();
  for (const s of byName.get("sluice_hook_outcomes_total")?.values ?? []) {
    if (s.labels.outcome === "failed") failed.set(`${s.labels.point}\u0000${s.labels.binding}`, s.value);
  }
  const ms = (v: number | null) => (v === null ? null : Math.round(v * 1e6) / 1e3);
  const hooks = [...durations.entries()].map(([key, d]) => {
    const f = fuel.get(key);
    return {
      point: d.point, binding: d.binding, calls: d.count, failed: failed.get(key) ?? 0,
      p50_ms: ms(bucketQuantile(0.5, d.buckets)), p99_ms: ms(bucketQuantile(0.99, d.buckets)),
      fuel_p50: f ? bucketQuantile(0.5, f.buckets) : null, fuel_p99: f ? bucketQuantile(0.99, f.buckets) : null,
    };
  }).sort((a, b) => a.point.localeCompare(b.point) || a.binding.localeCompare(b.binding));
  const boundary = (byName.get("sluice_boundary_calls_total")?.values ?? []).map((s) => ({ operation: String(s.labels.operation), outcome: String(s.labels.outcome), calls: s.value }));
  const calls = boundary.reduce((n, b) => n + b.calls, 0);
  const errors = boundary.filter((b) => b.outcome === "failed").reduce((n, b) => n + b.calls, 0);
  // The budget of a plugin whose manifest names no limits.fuel, to compare fuel used against.
  return { at: new Date().toISOString(), calls, errors, boundary, hooks, default_fuel_budget: DEFAULT_LIMITS.fuel };
}

export function metricsSummaryRoutes(app: FastifyInstance, prom: PromRegistry): void {
  app.get("/api/v1/metrics/summary", {
    config: VIEWER,
    schema: { tags: ["status"], summary: "The host's metrics as JSON: boundary calls and errors (totals since start), and per binding calls, p50/p99 run time (ms) and fuel.", response: { 200: SUMMARY, ...errorResponses() } },
  }, async () => metricsSummary(prom));
}
