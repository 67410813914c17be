import { afterEach, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../host/index.js";
import type { HostEvents } from "../../host/host.js";
import type { BindingInput } from "../../host/pipeline/release.js";
import { fixture, BACKSTOP_FUEL } from "../helpers/fixtures.js";
import { until } from "../helpers/until.js";

const ctx = { spaceId: "space-a" };
const schema = { type: "object", properties: { trace: { type: "string" } } };
const call = (h: Host) => h.tool(ctx, { toolId: "t", name: "t", schema, arguments: { trace: "" }, callId: "c" }, async (args) => args);

let host: Host;
afterEach(() => host?.close());

async function setUp(options: Parameters<typeof createHost>[0], bindings: Omit<BindingInput, "point">[]): Promise<{ events: { type: string; data: unknown }[] }> {
  host = createHost({ workers: 2, ...options });
  await host.loadPlugin({ id: "trapper", version: "1.0.0", wasm: fixture("unreachable") });
  await host.loadPlugin({ id: "looper", version: "1.0.0", wasm: fixture("loop"), limits: { fuel: BACKSTOP_FUEL } });
  await host.loadPlugin({ id: "contract", version: "1.0.0", wasm: fixture("contract-hook") });
  host.activate({ revision: 1, bindings: bindings.map((b) => ({ point: "tool.before", ...b })) });
  const events: { type: string; data: unknown }[] = [];
  for (const type of ["plugin.quarantined", "plugin.quarantine_lifted"] as (keyof HostEvents)[]) host.on(type, (data) => events.push({ type, data }));
  return { events };
}

const hookErrors = (r: Awaited<ReturnType<typeof call>>) => r.hooks.map((h) => h.error?.code ?? h.outcome);

describe("a plugin that keeps faulting is quarantined", () => {
  it("after the threshold its bindings get their failure policy without running it, and one event is emitted", async () => {
    const { events } = await setUp({ quarantine: { threshold: 3 } }, [
      { id: "trap", hookRef: "trapper@1.0.0", failurePolicy: "fail-open" },
      { id: "ok", hookRef: "contract@1.0.0", config: { mode: "append", tag: "x" } },
    ]);
    for (let i = 0; i < 3; i++) expect(hookErrors(await call(host))).toEqual(["GUEST_TRAP", "patch_input"]);
    expect(events).toMatchObject([{ type: "plugin.quarantined", data: { ref: "trapper@1.0.0", failures: 3, until: null, lastError: { code: "GUEST_TRAP" } } }]);

    const r = await call(host);
    expect(r.ok && r.facts.realResult).toEqual({ trace: "x" }); // the healthy plugin in the same stage still runs
    expect(r.hooks[0]).toMatchObject({ bindingId: "trap", outcome: "failed", durationMs: 0, error: { code: "PLUGIN_QUARANTINED", details: { ref: "trapper@1.0.0", lastError: "GUEST_TRAP" } } });
    expect(host.quarantine.list().map((q) => q.ref)).toEqual(["trapper@1.0.0"]);
    expect(events).toHaveLength(1);
  });

  it("a fail-closed binding of a quarantined plugin fails the call with HOOK_FAILED caused by PLUGIN_QUARANTINED, without a worker", async () => {
    await setUp({ quarantine: { threshold: 1 } }, [{ id: "trap", hookRef: "trapper@1.0.0" }]);
    const first = await call(host);
    expect(!first.ok && first.error.details?.cause).toMatchObject({ code: "GUEST_TRAP" });
    // No worker is involved: the call is answered before the event loop turns at all.
    let turned = false;
    setImmediate(() => { turned = true; });
    const second = await call(host);
    expect(!second.ok && second.error.code).toBe("HOOK_FAILED");
    expect(!second.ok && second.error.details?.cause).toMatchObject({ code: "PLUGIN_QUARANTINED" });
    expect(second.facts.called).toBe(false);
    expect(turned).toBe(false);
  });

  it("an operator lift runs the plugin again and is announced", async () => {
    const { events } = await setUp({ quarantine: { threshold: 1 } }, [{ id: "trap", hookRef: "trapper@1.0.0", failurePolicy: "fail-open" }]);
    await call(host);
    expect(hookErrors(await call(host))).toEqual(["PLUGIN_QUARANTINED"]);
    expect(host.quarantine.lift("trapper@1.0.0")).toBe(true);
    expect(host.quarantine.lift("trapper@1.0.0")).toBe(false);
    expect(host.quarantine.list()).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(["plugin.quarantined", "plugin.quarantine_lifted"]);
    expect(events[1]!.data).toMatchObject({ ref: "trapper@1.0.0", by: "operator" });
    expect(hookErrors(await call(host))).toEqual(["GUEST_TRAP"]);
  });

  it("a cooldown lifts the quarantine by itself", async () => {
    const { events } = await setUp({ quarantine: { threshold: 1, cooldownMs: 100 } }, [{ id: "trap", hookRef: "trapper@1.0.0", failurePolicy: "fail-open" }]);
    await call(host);
    expect(hookErrors(await call(host))).toEqual(["PLUGIN_QUARANTINED"]);
    // Until the cooldown's end by the clock the quarantine reads (Date.now), not a fixed 120 ms:
    // a timer's start is the event loop's time, which on a loaded machine can lag the moment
    // the quarantine began by more than the 20 ms to spare.
    const { until: ends } = events[0]!.data as { until: number };
    expect(await until(() => Date.now() >= ends)).toBe(true);
    expect(hookErrors(await call(host))).toEqual(["GUEST_TRAP"]);
    expect(events.map((e) => [e.type, (e.data as { by?: string }).by])).toEqual([["plugin.quarantined", undefined], ["plugin.quarantine_lifted", "cooldown"], ["plugin.quarantined", undefined]]);
  });

  it("each timeout counts once, although the stage is re-run after it", async () => {
    await setUp({ quarantine: { threshold: 2 } }, [
      { id: "ok", hookRef: "contract@1.0.0" },
      { id: "loop", hookRef: "looper@1.0.0", failurePolicy: "fail-open", timeoutMs: 30 },
    ]);
    expect(hookErrors(await call(host))).toEqual(["continue", "GUEST_TIMEOUT"]);
    expect(host.quarantine.list()).toEqual([]);
    expect(hookErrors(await call(host))).toEqual(["continue", "GUEST_TIMEOUT"]);
    expect(host.quarantine.list().map((q) => [q.ref, q.failures])).toEqual([["looper@1.0.0", 2]]);
  });

  it("never quarantines when turned off, and a throwing listener never fails a call", async () => {
    await setUp({ quarantine: false }, [{ id: "trap", hookRef: "trapper@1.0.0", failurePolicy: "fail-open" }]);
    for (let i = 0; i < 8; i++) expect(hookErrors(await call(host))).toEqual(["GUEST_TRAP"]);
    expect(host.quarantine.list()).toEqual([]);

    await host.close();
    await setUp({ quarantine: { threshold: 1 } }, [{ id: "trap", hookRef: "trapper@1.0.0", failurePolicy: "fail-open" }]);
    host.on("plugin.quarantined", () => { throw new Error("listener bug"); });
    const warned = new Promise((resolve) => process.once("warning", resolve));
    expect((await call(host)).ok).toBe(true);
    expect(String(await warned)).toMatch(/listener threw: listener bug/);
  });
});
