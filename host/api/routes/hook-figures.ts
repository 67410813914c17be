/**
 * `GET /api/v1/hook-figures`: per hook (point and binding), exact run-time and fuel
 * percentiles over the audit rows of a time range: every run's own figures, sorted, and the
 * nearest-rank quantile, never a histogram bucket's edge. The console's overview shows them.
 */
import type { FastifyInstance } from "fastify";
import type { Host } from "../../host.js";
import { VIEWER } from "../roles.js";
import { errorResponses } from "../schemas.js";
import { timeRange } from "../query-time.js";
import { recordsOf } from "../records-of.js";
import { figuresOf } from "../../records/hook-trends.js";
import type { AuditRecord } from "../../records/types.js";

/** Audit rows read at most per request: past it the answer says `complete: false`. */
export const FIGURES_MAX_ROWS = 200_000;

const figure = { type: ["number", "null"] } as const;
const RESPONSE = {
  type: "object", additionalProperties: false, required: ["from", "to", "rows", "complete", "hooks"],
  properties: {
    from: { type: ["integer", "null"] }, to: { type: ["integer", "null"] },
    rows: { type: "integer", description: "Audit rows read." },
    complete: { type: "boolean", description: `False when the range holds more than ${FIGURES_MAX_ROWS} rows: narrow it.` },
    hooks: {
      type: "array",
      items: {
        type: "object", additionalProperties: false,
        required: ["point", "binding", "hook_ref", "runs", "failed", "p50_ms", "p99_ms", "fuel_p50", "fuel_p99", "fuel_runs"],
        properties: {
          point: { type: "string" }, binding: { type: "string" }, hook_ref: { type: "string" },
          runs: { type: "integer" }, failed: { type: "integer", description: "Runs whose outcome was an error (failed, trapped, timed out)." },
          p50_ms: figure, p99_ms: figure, fuel_p50: figure, fuel_p99: figure,
          fuel_runs: { type: "integer", description: "Runs with a fuel figure (metered guests)." },
        },
      },
    },
  },
} as const;


export function hookFiguresRoutes(app: FastifyInstance, host: Host): void {
  app.get<{ Querystring: { from?: string; to?: string } }>("/api/v1/hook-figures", {
    config: VIEWER,
    schema: {
      tags: ["operations"],
      summary: "Per hook, exact p50/p99 run time and fuel over the audit rows in [from, to) (default: every row): each run's own figure, nearest rank.",
      querystring: { type: "object", additionalProperties: false, properties: { from: { type: "string" }, to: { type: "string" } } },
      response: { 200: RESPONSE, ...errorResponses(400) },
    },
  }, async (request) => {
    const range = timeRange(request.query);
    const rows = await recordsOf(host).audit({ ...range, limit: FIGURES_MAX_ROWS + 1 });
    const read = rows.slice(0, FIGURES_MAX_ROWS);
    const groups = new Map<string, { point: string; binding: string; hook_ref: string; rows: AuditRecord[] }>();
    for (const r of read) {
      const key = `${r.point}\u0000${r.bindingId}`;
      const g = groups.get(key) ?? { point: r.point, binding: r.bindingId, hook_ref: r.hookRef, rows: [] };
      groups.set(key, g);
      g.rows.push(r);
    }
    const hooks = [...groups.values()].map((g) => {
      const f = figuresOf(g.rows);
      return {
        point: g.point, binding: g.binding, hook_ref: g.hook_ref, runs: f.calls, failed: f.errors,
        p50_ms: f.p50Ms, p99_ms: f.p99Ms, fuel_p50: f.fuelP50, fuel_p99: f.fuelP99, fuel_runs: g.rows.filter((r) => r.fuel !== null && r.fuel !== undefined).length,
      };
    }).sort((a, b) => a.point.localeCompare(b.point) || a.binding.localeCompare(b.binding));
    return { from: range.from ?? null, to: range.to ?? null, rows: read.length, complete: rows.length <= FIGURES_MAX_ROWS, hooks };
  });
}
