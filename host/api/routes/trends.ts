/**
 * `GET /api/v1/trends` (per binding, over a time range in buckets: hook runs, errors, exact
 * p50/p99 run time and fuel, from the audit rows) and `GET /api/v1/usage` (per space and
 * per gateway key: operations, errors, model tokens, from the operation records). The
 * console's Trends page draws them.
 */
import type { FastifyInstance } from "fastify";
import { SluiceError } from "../../errors/sluice-error.js";
import type { Host } from "../../host.js";
import type { GatewayKeys } from "../../keys/keys.js";
import { hookTrends, TRENDS_MAX_BUCKETS, TRENDS_MAX_ROWS, type TrendFigures } from "../../records/hook-trends.js";
import { operationUsage, USAGE_MAX_RECORDS, type UsageFigures } from "../../records/usage.js";
import { VIEWER } from "../roles.js";
import { errorResponses } from "../schemas.js";
import { timeOf, timeRange } from "../query-time.js";
import { recordsOf } from "../records-of.js";

const DAY_MS = 24 * 60 * 60 * 1000;
const figure = { type: ["number", "null"] } as const;
const int = { type: "integer" } as const;
const FIGURES = {
  type: "object", additionalProperties: false, required: ["calls", "errors", "p50_ms", "p99_ms", "fuel_p50", "fuel_p99"],
  properties: { calls: int, errors: int, p50_ms: figure, p99_ms: figure, fuel_p50: figure, fuel_p99: figure },
} as const;
const TRENDS = {
  type: "object", additionalProperties: false, required: ["from", "to", "bucket_ms", "starts", "rows", "complete", "bindings"],
  properties: {
    from: int, to: int, bucket_ms: int,
    starts: { type: "array", items: int, description: "Each bucket's start (epoch ms); a bucket is [start, start + bucket_ms), the last one ends at `to`." },
    rows: { type: "integer", description: "Audit rows read." },
    complete: { type: "boolean", description: `False when the range holds more than ${TRENDS_MAX_ROWS} rows: narrow it.` },
    bindings: {
      type: "array",
      items: {
        type: "object", additionalProperties: false, required: ["binding", "point", "hook_ref", "buckets", "total"],
        properties: { binding: { type: "string" }, point: { type: "string" }, hook_ref: { type: "string" }, buckets: { type: "array", items: FIGURES }, total: FIGURES },
      },
    },
  },
} as const;
const USAGE_FIGURES = { calls: int, errors: int, input_tokens: int, output_tokens: int } as const;
const USAGE = {
  type: "object", additionalProperties: false, required: ["from", "to", "operations", "complete", "unreadable", "spaces", "keys"],
  properties: {
    from: { type: ["integer", "null"] }, to: { type: ["integer", "null"] },
    operations: { type: "integer", description: "Operations counted (started in the range)." },
    complete: { type: "boolean", description: `False when the store holds more than ${USAGE_MAX_RECORDS} records: the newest are counted.` },
    unreadable: { type: "integer", description: "Records that did not open (RECORD_UNREADABLE), left out of the counts." },
    spaces: { type: "array", items: { type: "object", additionalProperties: false, required: ["space", ...Object.keys(USAGE_FIGURES)], properties: { space: { type: "string" }, ...USAGE_FIGURES } } },
    keys: {
      type: "array",
      description: "Every gateway key of the server (revoked ones too), with the operations made with it in the range.",
      items: {
        type: "object", additionalProperties: false, required: ["key_id", "name", "prefix", "space", "revoked", ...Object.keys(USAGE_FIGURES)],
        properties: { key_id: { type: "string" }, name: { type: ["string", "null"] }, prefix: { type: "string" }, space: { type: "string" }, revoked: { type: "boolean" }, ...USAGE_FIGURES },
      },
    },
  },
} as const;

const figuresView = (f: TrendFigures) => ({ calls: f.calls, errors: f.errors, p50_ms: f.p50Ms, p99_ms: f.p99Ms, fuel_p50: f.fuelP50, fuel_p99: f.fuelP99 });
const usageView = (f: UsageFigures) => ({ calls: f.calls, errors: f.errors, input_tokens: f.inputTokens, output_tokens: f.outputTokens });


function bucketsOf(value: string | undefined): number {
  if (value === undefined) return 24;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > TRENDS_MAX_BUCKETS) throw new SluiceError("REQUEST_INVALID", `buckets must be an integer from 1 to ${TRENDS_MAX_BUCKETS}, got "${value.slice(0, 20)}"`, { buckets: value.slice(0, 20) });
  return n;
}

export function trendRoutes(app: FastifyInstance, host: Host, keys: GatewayKeys | undefined): void {
  app.get<{ Querystring: { from?: string; to?: string; buckets?: string; binding?: string } }>("/api/v1/trends", {
    config: VIEWER,
    schema: {
      tags: ["operations"],
      summary: "Per binding, over [from, to) (default: the last 24 hours) cut into `buckets` equal buckets (default 24, at most 500): hook runs, errors, and exact p50/p99 run time and fuel from the audit rows (each run's own figure, nearest rank), per bucket and over the whole range.",
      querystring: { type: "object", additionalProperties: false, properties: { from: { type: "string" }, to: { type: "string" }, buckets: { type: "string" }, binding: { type: "string" } } },
      response: { 200: TRENDS, ...errorResponses(400) },
    },
  }, async (request) => {
    const q = request.query;
    const to = timeOf(q.to, "to") ?? Date.now();
    const from = timeOf(q.from, "from") ?? to - DAY_MS;
    if (!(from < to)) throw new SluiceError("REQUEST_INVALID", `from must be before to (got from ${from}, to ${to})`, { from, to });
    const t = await hookTrends(recordsOf(host), { from, to, buckets: bucketsOf(q.buckets), ...(q.binding ? { bindingId: q.binding } : {}) });
    return {
      from: t.from, to: t.to, bucket_ms: t.bucketMs, starts: t.starts, rows: t.rows, complete: t.complete,
      bindings: t.bindings.map((b) => ({ binding: b.bindingId, point: b.point, hook_ref: b.hookRef, buckets: b.buckets.map(figuresView), total: figuresView(b.total) })),
    };
  });

  app.get<{ Querystring: { from?: string; to?: string } }>("/api/v1/usage", {
    config: VIEWER,
    schema: {
      tags: ["operations"],
      summary: "Per space and per gateway key, over the operations started in [from, to) (default: all): operations, those that ended in an error, and the model tokens billed.",
      querystring: { type: "object", additionalProperties: false, properties: { from: { type: "string" }, to: { type: "string" } } },
      response: { 200: USAGE, ...errorResponses(400) },
    },
  }, async (request) => {
    const range = timeRange(request.query);
    const u = await operationUsage(recordsOf(host), range);
    const byActor = new Map(u.actors.map((a) => [`${a.spaceId}\u0000${a.actorId}`, a]));
    const keyRows = keys ? await keys.list() : [];
    return {
      from: u.from, to: u.to, operations: u.operations, complete: u.complete, unreadable: u.unreadable,
      spaces: u.spaces.map((s) => ({ space: s.spaceId, ...usageView(s) })),
      keys: keyRows.map((k) => ({
        key_id: k.id, name: k.name, prefix: k.prefix, space: k.spaceId, revoked: k.revokedAt !== null,
        ...usageView(byActor.get(`${k.spaceId}\u0000${k.id}`) ?? { calls: 0, errors: 0, inputTokens: 0, outputTokens: 0 }),
      })).sort((a, b) => b.calls - a.calls || a.space.localeCompare(b.space) || a.key_id.localeCompare(b.key_id)),
    };
  });
}
