// Fuel is visible: each guest hook's fuel is in its step report (HookTrace), its
// audit record and its hook.executed event; in-process hooks are not metered and carry none.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SluiceEvent } from "../../abi/events/index.js";
import { createHost, createMemoryRecords, type Host, type OperationStore } from "../../host/index.js";
import type { ToolCall } from "../../host/boundary/tool.js";
import { CONTINUE_FUEL, fixture } from "../helpers/fixtures.js";

let host: Host;
let records: OperationStore;
const events: SluiceEvent[] = [];
beforeAll(async () => {
  records = createMemoryRecords();
  host = createHost({ workers: 1, records, quarantine: false });
  await host.loadPlugin({ id: "ok", version: "1.0.0", wasm: fixture("continue") });
  await host.loadPlugin({ id: "runaway", version: "1.0.0", wasm: fixture("loop"), limits: { fuel: 50_000 } });
  host.registerHook("trusted", async () => ({ kind: "continue" }));
  host.observer.on((e) => { events.push(e); });
  host.activate({
    revision: 1,
    bindings: [
      { id: "b-guest", hookRef: "ok@1.0.0", point: "tool.before" },
      { id: "b-runaway", hookRef: "runaway@1.0.0", point: "tool.before", failurePolicy: "fail-open" },
      { id: "b-trusted", hookRef: "trusted", point: "tool.before" },
    ],
  });
});
afterAll(() => host.close());

const call: ToolCall = { toolId: "orders.search", name: "search", schema: { type: "object" }, arguments: {}, callId: "c1" };

describe("each hook's fuel", () => {
  it("is in the step report, the audit record and the hook.executed event; a runaway is handled by its failure policy", async () => {
    const r = await host.tool({ spaceId: "space-a" }, call, async () => "done");
    expect(r.ok).toBe(true);
    const fuel = Object.fromEntries(r.hooks.map((h) => [h.bindingId, h.fuel]));
    expect(fuel).toEqual({ "b-guest": CONTINUE_FUEL, "b-runaway": 50_001, "b-trusted": undefined });
    expect(r.hooks.find((h) => h.bindingId === "b-runaway")!.error!.code).toBe("GUEST_FUEL_EXHAUSTED");

    const audit = await records.audit({ operationId: r.facts.operationId });
    expect(Object.fromEntries(audit.map((a) => [a.bindingId, a.fuel]))).toEqual({ "b-guest": CONTINUE_FUEL, "b-runaway": 50_001, "b-trusted": null });

    await host.observer.flush();
    const executed = events.filter((e) => e.type === "hook.executed") as (SluiceEvent & { binding_id: string; fuel?: number })[];
    expect(Object.fromEntries(executed.map((e) => [e.binding_id, e.fuel]))).toEqual({ "b-guest": CONTINUE_FUEL, "b-runaway": 50_001, "b-trusted": undefined });
    expect(executed.find((e) => e.binding_id === "b-trusted")).not.toHaveProperty("fuel");
  });
});
