/**
 * Per binding, over a time range cut into equal buckets: hook runs, errors, and exact
 * p50/p99 run time and fuel, from the audit rows themselves (each run's own figures, nearest
 * rank). The same code over every store's rows, so SQLite and PostgreSQL answer alike.
 */
import { nearestRank } from "./nearest-rank.js";
import type { OperationStore } from "./store.js";
import type { AuditRecord } from "./types.js";

/** Audit rows read at most for one answer: past it the answer says `complete: false`. */
export const TRENDS_MAX_ROWS = 200_000;
export const TRENDS_MAX_BUCKETS = 500;

export interface TrendFigures {
  calls: number;
  errors: number;
  p50Ms: number | null;
  p99Ms: number | null;
  fuelP50: number | null;
  fuelP99: number | null;
}

export interface BindingTrend {
  bindingId: string;
  point: string;
  /** The plugin (`id@version`) or in-process hook of the binding's newest run in the range. */
  hookRef: string;
  /** One entry per bucket, in time order. */
  buckets: TrendFigures[];
  /** The whole range. */
  total: TrendFigures;
}

export interface HookTrends {
  from: number;
  to: number;
  bucketMs: number;
  /** Each bucket's start; bucket i is [starts[i], starts[i] + bucketMs), the last one ends at `to`. */
  starts: number[];
  rows: number;
  complete: boolean;
  bindings: BindingTrend[];
}

/** Figures of one group of runs. */
export function figuresOf(rows: readonly Pick<AuditRecord, "durationMs" | "fuel" | "errorCode">[]): TrendFigures {
  const ms = rows.map((r) => r.durationMs).sort((a, b) => a - b);
  const fuel = rows.flatMap((r) => (r.fuel === null || r.fuel === undefined ? [] : [r.fuel])).sort((a, b) => a - b);
  return {
    calls: rows.length, errors: rows.filter((r) => r.errorCode).length,
    p50Ms: nearestRank(ms, 0.5), p99Ms: nearestRank(ms, 0.99), fuelP50: nearestRank(fuel, 0.5), fuelP99: nearestRank(fuel, 0.99),
  };
}

/**
 * The trends of [from, to) in `buckets` buckets (the last one may be shorter), optionally of one binding.
 * @example await hookTrends(store, { from: Date.now() - 86_400_000, to: Date.now(), buckets: 24 })
 */
export async function hookTrends(store: OperationStore, q: { from: number; to: number; buckets: number; bindingId?: string }): Promise<HookTrends> {
  const bucketMs = Math.max(1, Math.ceil((q.to - q.from) / q.buckets));
  const count = Math.max(1, Math.ceil((q.to - q.from) / bucketMs));
  const starts = Array.from({ length: count }, (_, i) => q.from + i * bucketMs);
  const read = await store.audit({ from: q.from, to: q.to, limit: TRENDS_MAX_ROWS + 1, ...(q.bindingId !== undefined ? { bindingId: q.bindingId } : {}) });
  const rows = read.slice(0, TRENDS_MAX_ROWS);
  const groups = new Map<string, { point: string; hookRef: string; all: AuditRecord[]; byBucket: AuditRecord[][] }>();
  for (const r of rows) {
    let g = groups.get(r.bindingId);
    if (!g) groups.set(r.bindingId, (g = { point: r.point, hookRef: r.hookRef, all: [], byBucket: starts.map(() => []) }));
    g.hookRef = r.hookRef;
    g.all.push(r);
    g.byBucket[Math.min(count - 1, Math.floor((r.at - q.from) / bucketMs))]!.push(r);
  }
  const bindings = [...groups.entries()].map(([bindingId, g]): BindingTrend => ({ bindingId, point: g.point, hookRef: g.hookRef, buckets: g.byBucket.map(figuresOf), total: figuresOf(g.all) }))
    .sort((a, b) => a.point.localeCompare(b.point) || a.bindingId.localeCompare(b.bindingId));
  return { from: q.from, to: q.to, bucketMs, starts, rows: rows.length, complete: read.length <= TRENDS_MAX_ROWS, bindings };
}
