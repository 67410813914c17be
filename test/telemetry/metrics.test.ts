/**
 * Prometheus metrics after a run: hook latency by point and binding, outcomes, timeouts,
 * traps, boundary calls, pool size and queue depth, served at /metrics in one line.
 */
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, createObserver, metricsHandler, type Host } from "../../host/index.js";
import type { ToolCall } from "../../host/boundary/tool.js";
import { fixture, BACKSTOP_FUEL, CONTINUE_FUEL } from "../helpers/fixtures.js";

let host: Host;
beforeAll(async () => {
  host = createHost({ workers: 2, quarantine: false });
  await host.loadPlugin({ id: "ok", version: "1.0.0", wasm: fixture("continue") });
  await host.loadPlugin({ id: "trap", version: "1.0.0", wasm: fixture("unreachable") });
  await host.loadPlugin({ id: "loop", version: "1.0.0", wasm: fixture("loop"), limits: { fuel: BACKSTOP_FUEL } });
  host.registerHook("deny", async () => ({ kind: "reject", code: "no", reason: "denied" }));
  host.activate({
    revision: 7,
    bindings: [
      { id: "ok-b", hookRef: "ok@1.0.0", point: "tool.before" },
      { id: "trap-b", hookRef: "trap@1.0.0", point: "tool.before", failurePolicy: "fail-open" },
      { id: "loop-b", hookRef: "loop@1.0.0", point: "tool.after", failurePolicy: "fail-open", timeoutMs: 50 },
      { id: "deny-b", hookRef: "deny", point: "model.chat.before" },
    ],
  });
});
afterAll(() => host.close());

const ctx = { spaceId: "space-a" };
const call: ToolCall = { toolId: "orders.search", name: "search", schema: { type: "object" }, arguments: {}, callId: "c1" };

/** The value of one sample line of the exposition text. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text.split("\n").find((l) => l.startsWith(name + (want.length ? "{" : " ")) && want.every((w) => l.includes(w)));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

describe("metrics", () => {
  it("count hook outcomes, latency, timeouts and traps by point and binding, and boundary calls by outcome", async () => {
    expect((await host.tool(ctx, call, async () => 1)).ok).toBe(true);
    expect((await host.chat(ctx, { model: "m1", messages: [{ role: "user", content: "hi" }] }, async () => ({ content: "x", tool_calls: [], finish_reason: "stop", usage: { input_tokens: 1, output_tokens: 1 } }))).ok).toBe(false);
    const text = await host.observer.registry.metrics();

    expect(sample(text, "sluice_hook_outcomes_total", { point: "tool.before", binding: "ok-b", outcome: "continue" })).toBe(1);
    expect(sample(text, "sluice_hook_outcomes_total", { point: "tool.before", binding: "trap-b", outcome: "failed" })).toBe(1);
    expect(sample(text, "sluice_hook_outcomes_total", { point: "model.chat.before", binding: "deny-b", outcome: "reject" })).toBe(1);
    expect(sample(text, "sluice_hook_traps_total", { point: "tool.before", binding: "trap-b", code: "GUEST_TRAP" })).toBe(1);
    expect(sample(text, "sluice_hook_timeouts_total", { point: "tool.after", binding: "loop-b" })).toBe(1);
    expect(sample(text, "sluice_hook_duration_seconds_count", { point: "tool.before", binding: "ok-b" })).toBe(1);
    expect(sample(text, "sluice_hook_duration_seconds_bucket", { point: "tool.after", binding: "loop-b", le: "0.01" })).toBe(0);
    expect(sample(text, "sluice_boundary_calls_total", { operation: "tool", outcome: "succeeded" })).toBe(1);
    expect(sample(text, "sluice_boundary_calls_total", { operation: "chat", outcome: "rejected" })).toBe(1);
    expect(sample(text, "sluice_boundary_duration_seconds_count", { operation: "tool", outcome: "succeeded" })).toBe(1);
    expect(sample(text, "sluice_release_revision", { host: host.id })).toBe(7);
  });

  it("observe each guest hook's fuel; in-process hooks are not metered", async () => {
    const text = await host.observer.registry.metrics();
    expect(sample(text, "sluice_hook_fuel_count", { point: "tool.before", binding: "ok-b" })).toBe(1);
    expect(sample(text, "sluice_hook_fuel_sum", { point: "tool.before", binding: "ok-b" })).toBe(CONTINUE_FUEL);
    expect(sample(text, "sluice_hook_fuel_bucket", { point: "tool.before", binding: "ok-b", le: "1000" })).toBe(1);
    expect(sample(text, "sluice_hook_fuel_count", { point: "model.chat.before", binding: "deny-b" })).toBeUndefined();
  });

  it("keep counting a hook's series call after call, and start again from zero after the registry is reset", async () => {
    const count = async () => sample(await host.observer.registry.metrics(), "sluice_hook_outcomes_total", { point: "tool.before", binding: "ok-b", outcome: "continue" });
    const before = (await count())!;
    expect((await host.tool(ctx, call, async () => 1)).ok).toBe(true);
    expect((await host.tool(ctx, call, async () => 1)).ok).toBe(true);
    expect(await count()).toBe(before + 2);
    host.observer.registry.resetMetrics();
    expect(await count()).toBeUndefined();
    expect((await host.tool(ctx, call, async () => 1)).ok).toBe(true);
    const text = await host.observer.registry.metrics();
    expect(sample(text, "sluice_hook_outcomes_total", { point: "tool.before", binding: "ok-b", outcome: "continue" })).toBe(1);
    expect(sample(text, "sluice_hook_duration_seconds_count", { point: "tool.before", binding: "ok-b" })).toBe(1);
    expect(sample(text, "sluice_hook_fuel_count", { point: "tool.before", binding: "ok-b" })).toBe(1);
  });

  it("report the pool's threads and queue depth", async () => {
    const text = await host.observer.registry.metrics();
    expect(sample(text, "sluice_pool_threads")).toBe(host.sandbox.threadCount);
    expect(sample(text, "sluice_pool_queue_depth")).toBe(0);
  });

  it("hosts sharing a registry share the metrics, and the pool gauges add up", async () => {
    const observer = createObserver();
    const a = createHost({ workers: 1, observer });
    const b = createHost({ workers: 2, observer: createObserver({ registry: observer.registry }) });
    try {
      await Promise.all([a.sandbox.ready(), b.sandbox.ready()]);
      expect(sample(await observer.registry.metrics(), "sluice_pool_threads")).toBe(a.sandbox.threadCount + b.sandbox.threadCount);
    } finally {
      await a.close();
      await b.close();
    }
    expect(sample(await observer.registry.metrics(), "sluice_pool_threads")).toBe(0);
  });

  it("are served at /metrics by one route line in Fastify, and by node:http", async () => {
    const app = Fastify();
    app.get("/metrics", metricsHandler(host.observer.registry));
    const res = await app.inject({ method: "GET", url: "/metrics" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toContain("text/plain");
    expect(res.body).toContain("sluice_hook_duration_seconds_bucket");
    await app.close();

    const headers: Record<string, string> = {};
    let body = "";
    await metricsHandler(host.observer.registry)({}, { setHeader: (k: string, v: string) => { headers[k] = v; }, end: (b: string) => { body = b; } });
    expect(headers["content-type"]).toContain("text/plain");
    expect(body).toContain("sluice_boundary_calls_total");
  });
});
