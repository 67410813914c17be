/**
 * What /console adds to the management API, checked without a browser: its files
 * are served without the token under a strict CSP while every API route still wants it;
 * the Host and Origin guards still run in front of the files; the failed-auth limit is not
 * spent by loading the page; the release diff, the histogram quantiles and the fleet route.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gzipSync } from "node:zlib";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiServer } from "../../host/api/server.js";
import { consoleRoutes, CONSOLE_CSP } from "../../host/api/routes/console.js";
import { bucketQuantile } from "../../host/api/routes/metrics-summary.js";
import { Registry } from "../../host/registry/registry.js";
import { diffReleases, fieldChanges, summarize, type Release } from "../../console/src/diff.js";
import { tempDir } from "../registry/fixtures.js";

const TOKEN = "console-routes-token-0123456789abcdefghij";
let registry: Registry;
let app: FastifyInstance;
const auth = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  registry = await Registry.open({ dataDir: tempDir(), hostOptions: { workers: 1 } });
  app = await createApiServer({ registry, token: TOKEN, logger: false });
});
afterAll(async () => { await app.close(); await registry.close(); });

describe("the console's files", () => {
  it("are served without the token, under a CSP allowing only this server", async () => {
    const res = await app.inject({ url: "/console/" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toContain("text/html");
    expect(res.headers["content-security-policy"]).toBe(CONSOLE_CSP);
    expect(CONSOLE_CSP).toMatch(/default-src 'none'.*script-src 'self'.*connect-src 'self'/);
    expect(CONSOLE_CSP).not.toContain("unsafe-inline");
    expect(res.headers["x-frame-options"]).toBe("DENY");
    const script = /src="\/console\/(assets\/[^"]+\.js)"/.exec(res.body)![1]!;
    const js = await app.inject({ url: `/console/${script}` });
    expect(js.statusCode).toBe(200);
    expect(js.headers["content-type"]).toContain("text/javascript");
    // A lean bundle: the issue allows about 200 KB of compressed JavaScript.
    expect(gzipSync(js.rawPayload).byteLength).toBeLessThan(200 * 1024);
    expect((await app.inject({ url: "/console" })).headers.location).toBe("/console/");
  });

  it("leave every API route behind the token, and an unknown file is ROUTE_NOT_FOUND", async () => {
    expect((await app.inject({ url: "/api/v1/status" })).json().error.code).toBe("UNAUTHORIZED");
    expect((await app.inject({ url: "/api/v1/metrics/summary" })).statusCode).toBe(401);
    expect((await app.inject({ url: "/api/v1/fleet" })).statusCode).toBe(401);
    const missing = await app.inject({ url: "/console/../api/v1/status" });
    expect(missing.statusCode).not.toBe(200);
    expect((await app.inject({ url: "/console/assets/nope.js" })).json().error.code).toBe("ROUTE_NOT_FOUND");
  });

  it("are behind the Host and Origin guards like the API", async () => {
    expect((await app.inject({ url: "/console/", headers: { host: "evil.example:80" } })).json().error.code).toBe("HOST_NOT_ALLOWED");
    expect((await app.inject({ url: "/console/", headers: { origin: "http://evil.example" } })).json().error.code).toBe("ORIGIN_NOT_ALLOWED");
    expect((await app.inject({ url: "/console/", headers: { "sec-fetch-site": "cross-site" } })).json().error.code).toBe("ORIGIN_NOT_ALLOWED");
  });

  it("do not spend or bypass the failed-authentication limit", async () => {
    const limited = await createApiServer({ registry, token: TOKEN, logger: false, authFailures: { max: 3, windowMs: 60_000 } });
    for (let i = 0; i < 5; i++) expect((await limited.inject({ url: "/console/" })).statusCode).toBe(200);
    const wrong = { authorization: "Bearer wrong-wrong-wrong-wrong-wrong-wrong" };
    for (let i = 0; i < 3; i++) expect((await limited.inject({ url: "/api/v1/status", headers: wrong })).statusCode).toBe(401);
    expect((await limited.inject({ url: "/api/v1/status", headers: wrong })).json().error.code).toBe("RATE_LIMITED");
    // The page still loads (it holds no data), so the operator sees the API's RATE_LIMITED when signing in.
    expect((await limited.inject({ url: "/console/" })).statusCode).toBe(200);
    await limited.close();
  });

  it("answer a clear error when the console is not built", async () => {
    const { default: Fastify } = await import("fastify");
    const bare = Fastify();
    const empty = path.join(tempDir("sluice-console-empty-"), "console");
    mkdirSync(empty, { recursive: true });
    writeFileSync(path.join(empty, "readme.txt"), "not served");
    consoleRoutes(bare as unknown as FastifyInstance, empty);
    const res = await bare.inject({ url: "/console/" });
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain("npm run build");
    await bare.close();
  });
});

describe("the console's API additions", () => {
  it("GET /api/v1/fleet lists this host alone on SQLite", async () => {
    const fleet = (await app.inject({ url: "/api/v1/fleet", headers: auth })).json();
    expect(fleet).toMatchObject({ this_host: registry.host.id, shared: false, items: [{ host_id: registry.host.id, serving_revision: 0, active_revision: 0 }] });
  });

  it("GET /api/v1/metrics/summary answers totals, hooks and the default fuel budget", async () => {
    const fresh = await createApiServer({ registry, token: TOKEN, logger: false });
    const summary = (await fresh.inject({ url: "/api/v1/metrics/summary", headers: auth })).json();
    expect(summary).toMatchObject({ calls: 0, errors: 0, hooks: [], default_fuel_budget: 50_000_000 });
    await fresh.close();
  });

  it("estimates quantiles from cumulative buckets as histogram_quantile does", () => {
    const buckets = [{ le: 1, count: 0 }, { le: 2, count: 50 }, { le: 4, count: 100 }, { le: Infinity, count: 100 }];
    expect(bucketQuantile(0.5, buckets)).toBe(2);
    expect(bucketQuantile(0.25, buckets)).toBe(1.5);
    expect(bucketQuantile(0.99, buckets)).toBeCloseTo(3.96);
    expect(bucketQuantile(0.5, [{ le: 1, count: 0 }, { le: Infinity, count: 0 }])).toBeNull();
    expect(bucketQuantile(0.99, [{ le: 1, count: 1 }, { le: Infinity, count: 10 }])).toBe(1);
  });
});

describe("the release diff", () => {
  const binding = (id: string, position: number, extra: Record<string, unknown> = {}) => ({ id, position, hook_ref: "p@1.0.0", point: "tool.before", priority: 100, config: { max_limit: 50, nested: { a: 1 } }, enabled: true, registered_at: "t", ...extra });
  const r1: Release = { revision: 1, order_mode: "staged", bindings: [binding("a", 0), binding("b", 1), binding("c", 2)] };
  const r2: Release = { revision: 2, order_mode: "symmetric", bindings: [binding("c", 0), binding("a", 1, { config: { max_limit: 20, nested: { a: 1 } }, registered_at: "later" }), binding("d", 2)] };

  it("names bindings added, removed and changed field by field, and order differences", () => {
    const d = diffReleases(r1, r2);
    expect(d.added.map((b) => b.id)).toEqual(["d"]);
    expect(d.removed.map((b) => b.id)).toEqual(["b"]);
    expect(d.changed).toEqual([{ id: "a", fields: [{ path: "/config/max_limit", from: 50, to: 20 }] }]);
    expect(d.order).toEqual({ from: ["a", "c"], to: ["c", "a"] });
    expect(d.orderMode).toEqual({ from: "staged", to: "symmetric" });
    expect(summarize(d)).toEqual(["adds d (p@1.0.0 at tool.before)", "removes b (p@1.0.0 at tool.before)", "a: config.max_limit 50 → 20", "reorders: c → a", "order mode staged → symmetric"]);
  });

  it("says each change with its direction: a rollback that turns a guard off reads enabled true → false", () => {
    const on: Release = { revision: 2, order_mode: "staged", bindings: [binding("guard-prompts", 0)] };
    const off: Release = { revision: 3, order_mode: "staged", bindings: [binding("guard-prompts", 0, { enabled: false })] };
    expect(summarize(diffReleases(off, on))).toEqual(["guard-prompts: enabled false → true"]);
    expect(summarize(diffReleases(on, off))).toEqual(["guard-prompts: enabled true → false"]);
  });

  it("finds nothing between a revision and itself", () => {
    const d = diffReleases(r1, { ...r1, revision: 3 });
    expect([d.added, d.removed, d.changed, d.order, d.orderMode]).toEqual([[], [], [], null, null]);
    expect(summarize(d)).toEqual(["no binding changes (same bindings, config and order)"]);
    expect(fieldChanges({ a: [1, 2] }, { a: [1, 3] })).toEqual([{ path: "/a", from: [1, 2], to: [1, 3] }]);
  });
});
