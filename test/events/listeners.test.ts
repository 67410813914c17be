/**
 * Listeners are asynchronous and isolated: a throwing, rejecting, mutating or slow listener
 * never blocks or breaks a boundary call, nor keeps other listeners from their events. An
 * event that fails its schema is a host bug: thrown outside production, dropped and
 * counted in production.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, createObserver, isSluiceError, type Host, type Observer } from "../../host/index.js";
import type { EventFields, SluiceEvent } from "../../abi/events/index.js";
import type { ToolCall } from "../../host/boundary/tool.js";

const ctx = { spaceId: "space-a", runId: "r1" };
const call: ToolCall = { toolId: "orders.search", name: "search", schema: { type: "object" }, arguments: { q: "x" }, callId: "c1" };

let host: Host;
let observer: Observer;
const reported: string[] = [];
beforeAll(() => {
  observer = createObserver({ report: (message) => { reported.push(message); } });
  host = createHost({ workers: 1, observer });
  host.registerHook("noop", async () => ({ kind: "continue" }));
  host.activate({ revision: 1, bindings: [{ id: "b1", hookRef: "noop", point: "tool.before" }, { id: "b2", hookRef: "noop", point: "tool.after" }] });
});
afterAll(() => host.close());

async function counter(name: string): Promise<number> {
  const metric = await observer.registry.getSingleMetric(name)!.get();
  return metric.values.reduce((n, v) => n + v.value, 0);
}

describe("event listeners", () => {
  it("a throwing, a rejecting and a mutating listener break neither the call nor the other listeners", async () => {
    const seen: SluiceEvent[] = [];
    const offs = [
      observer.on(() => { throw new Error("listener bug"); }),
      observer.on(async () => { throw new Error("async listener bug"); }),
      observer.on((e) => { (e as { type: string }).type = "changed"; }),
      observer.on((e) => { seen.push(e); }),
    ];
    const before = await counter("sluice_event_listener_errors_total");
    try {
      const r = await host.tool(ctx, call, async () => ({ rows: 1 }));
      expect(r.ok).toBe(true);
      await observer.flush();
      expect(seen.map((e) => e.type)).toEqual(["tool.invocation.requested", "hook.executed", "hook.executed", "tool.invocation.completed"]);
      // Three failing listeners (the mutation hits a frozen event) on each of four events.
      expect(await counter("sluice_event_listener_errors_total")).toBe(before + 12);
      expect(reported.filter((m) => m.includes("event listener failed"))).toHaveLength(12);
    } finally {
      for (const off of offs) off();
    }
  });

  it("a slow listener does not delay the call, and flush can give up on it", async () => {
    let started = 0;
    let finished = 0;
    const off = observer.on(async () => { started++; await new Promise((r) => setTimeout(r, 1_000)); finished++; });
    try {
      const t0 = performance.now();
      const r = await host.tool(ctx, call, async () => 1);
      expect(r.ok).toBe(true);
      expect(performance.now() - t0).toBeLessThan(500);
      await observer.flush(50);
      expect(started).toBe(4);
      expect(finished).toBe(0);
      await observer.flush();
      expect(finished).toBe(4);
    } finally {
      off();
    }
  });

  it("listeners run after the event is published, never inside the host's own call stack", async () => {
    let inside = true;
    const calledInside: boolean[] = [];
    const off = observer.on(() => { calledInside.push(inside); });
    try {
      observer.publish("release.activated", { revision: 9, previous_revision: null, order_mode: "staged", bindings: [] });
      inside = false;
      await observer.flush();
      expect(calledInside).toEqual([false]);
    } finally {
      off();
    }
  });

  it("a listener can subscribe to some kinds only, and unsubscribe", async () => {
    const seen: string[] = [];
    const off = observer.on((e) => { seen.push(e.type); }, ["tool.invocation.completed"]);
    await host.tool(ctx, call, async () => 1);
    off();
    await host.tool(ctx, call, async () => 1);
    await observer.flush();
    expect(seen).toEqual(["tool.invocation.completed"]);
  });
});

describe("invalid events", () => {
  const bad = { revision: -1, previous_revision: null, order_mode: "staged", bindings: [] } as EventFields<"release.activated">;

  it("throw EVENT_INVALID outside production, naming the kind and the problem", () => {
    const strict = createObserver({ invalidEvents: "throw" });
    const off = strict.on(() => {});
    expect(() => strict.publish("release.activated", bad)).toThrow(expect.objectContaining({ code: "EVENT_INVALID", message: expect.stringContaining("release.activated") }));
    off();
  });

  it("is the default outside production (vitest sets NODE_ENV=test)", () => {
    const byDefault = createObserver();
    byDefault.on(() => {});
    try {
      byDefault.publish("release.activated", bad);
      expect.unreachable();
    } catch (err) {
      expect(isSluiceError(err, "EVENT_INVALID")).toBe(true);
    }
  });

  it("in production are reported, counted and dropped: listeners never see them", async () => {
    const messages: string[] = [];
    const lenient = createObserver({ invalidEvents: "drop", report: (m) => { messages.push(m); } });
    const seen: unknown[] = [];
    lenient.on((e) => { seen.push(e); });
    lenient.publish("release.activated", bad);
    await lenient.flush();
    expect(seen).toEqual([]);
    expect(messages).toEqual([expect.stringContaining("invalid release.activated event")]);
    expect(await lenient.registry.getSingleMetric("sluice_events_invalid_total")!.get()).toMatchObject({ values: [{ labels: { type: "release.activated" }, value: 1 }] });
  });

  it("are not even built when nobody listens", () => {
    const quiet = createObserver({ invalidEvents: "throw" });
    expect(() => quiet.publish("release.activated", bad)).not.toThrow();
  });
});
