/**
 * What is on record when the operation goes on past a phase boundary (records/journal.ts):
 * the "running" record before the wrapped call starts, the real result before any after
 * hook runs, the ending before the call returns; and nothing more than those writes.
 */
import { afterAll, expect, it } from "vitest";
import { createHost, createMemoryRecords, type OperationStore } from "../../host/index.js";
import { call, ctx } from "./scenarios.js";
import { firstInsertFails, slowRecords } from "./phase-stores.js";

const { inner, completed, store: slow } = slowRecords();
const host = createHost({ workers: 1, records: slow });
afterAll(() => host.close());

it("the wrapped call starts only after the store has completed the running write, and a call without hooks writes twice", async () => {
  host.activate({ revision: 1, bindings: [] });
  completed.length = 0;
  let seenAtCall: string[] | undefined;
  const r = await host.tool(ctx, call, async () => { seenAtCall = [...completed]; return "ok"; });
  expect(r.ok).toBe(true);
  expect(seenAtCall).toEqual(["insert operation/running"]);
  // No after hook runs: the ending carries the real status (nothing to resume, so no stored result).
  expect(completed).toEqual(["insert operation/running", "update finished/succeeded"]);
  expect(await inner.get(r.facts.operationId)).toMatchObject({ phase: "finished", realStatus: "succeeded", outcome: "succeeded" });
});

it("the real result is on record before the first after hook runs", async () => {
  let seenAtHook: string[] | undefined;
  let storedAtHook: unknown;
  host.registerHook("look", async (request) => {
    seenAtHook = [...completed];
    storedAtHook = await inner.result(String((request.context as { operation_id: string }).operation_id));
    return { kind: "continue" };
  });
  host.activate({ revision: 2, bindings: [{ id: "look-after", hookRef: "look", point: "tool.after" }] });
  completed.length = 0;
  const r = await host.tool(ctx, call, async () => "ok");
  expect(r.ok).toBe(true);
  // The real result rides on the first after hook's checkpoint, which completes before that hook runs.
  expect(seenAtHook).toEqual(["insert operation/running", "update after/succeeded +result"]);
  expect(storedAtHook).toMatchObject({ real: "ok" });
  expect(completed).toEqual(["insert operation/running", "update after/succeeded +result", "update finished/succeeded"]);
  expect(await inner.get(r.facts.operationId)).toMatchObject({ phase: "finished", inProgress: null, completed: [{ point: "tool.after", bindingId: "look-after" }] });
});

it("a later after hook that ends within the checkpoint delay writes no checkpoint of its own; one that runs longer does", async () => {
  host.registerHook("quick", async () => ({ kind: "continue" }));
  host.registerHook("slow", async () => { await new Promise((resolve) => setTimeout(resolve, 100)); return { kind: "continue" }; });
  host.activate({ revision: 3, bindings: [{ id: "first", hookRef: "quick", point: "tool.after" }, { id: "second", hookRef: "quick", point: "tool.after" }] });
  completed.length = 0;
  const quick = await host.tool(ctx, call, async () => "ok");
  expect(quick.ok).toBe(true);
  expect(completed).toEqual(["insert operation/running", "update after/succeeded +result", "update finished/succeeded"]);
  host.activate({ revision: 4, bindings: [{ id: "first", hookRef: "quick", point: "tool.after" }, { id: "second", hookRef: "slow", point: "tool.after" }] });
  completed.length = 0;
  const slowed = await host.tool(ctx, call, async () => "ok");
  expect(slowed.ok).toBe(true);
  expect(completed).toEqual(["insert operation/running", "update after/succeeded +result", "update -/-", "update finished/succeeded"]);
});

it("a 'running' write that fails refuses the call, and the ending still records the operation, with its before stage's audit", async () => {
  const { store, flaky } = firstInsertFails();
  const h = createHost({ workers: 1, records: flaky });
  try {
    h.registerHook("seen", async () => ({ kind: "continue" }));
    h.activate({ revision: 1, bindings: [{ id: "seen-before", hookRef: "seen", point: "tool.before" }] });
    let calls = 0;
    const r = await h.tool(ctx, call, async () => { calls++; return "ok"; });
    expect(!r.ok && r.error.code).toBe("STORE_UNAVAILABLE");
    expect(calls).toBe(0);
    expect(await store.get(r.facts.operationId)).toMatchObject({ phase: "finished", realStatus: "not_started", outcome: "failed", error: { code: "STORE_UNAVAILABLE" } });
    expect((await store.audit({ operationId: r.facts.operationId })).map((a) => a.bindingId)).toEqual(["seen-before"]);
  } finally {
    await h.close();
  }
});

it("a recorded after stage of guest hooks goes to a worker as one task, and names a later hook that runs long while it runs", async () => {
  const { vi } = await import("vitest");
  const { Sandbox } = await import("../../host/sandbox/main/sandbox.js");
  const { fixture } = await import("../helpers/fixtures.js");
  const store = createMemoryRecords();
  const named: unknown[] = [];
  const watching: OperationStore = { ...store, update: (id, changes, result, audit) => { if (changes.inProgress) named.push(changes.inProgress); return store.update(id, changes, result, audit); } };
  const h = createHost({ workers: 1, records: watching });
  const tasks = vi.spyOn(Sandbox.prototype, "runStage");
  try {
    await h.loadPlugin({ id: "contract", version: "1.0.0", wasm: fixture("contract-hook") });
    // Fuel enough to spin to its time limit: the default budget ends the loop in a few ms,
    // which a loaded machine's event loop can miss entirely.
    await h.loadPlugin({ id: "contract-b", version: "1.0.0", wasm: fixture("contract-hook"), limits: { fuel: 1_000_000_000_000 } });
    h.activate({ revision: 1, bindings: [
      { id: "first", hookRef: "contract@1.0.0", point: "tool.after", config: { mode: "continue" } },
      { id: "second", hookRef: "contract-b@1.0.0", point: "tool.after", config: { mode: "continue" } },
    ] });
    tasks.mockClear();
    const quick = await h.tool(ctx, call, async () => "ok");
    expect(quick.ok).toBe(true);
    expect(quick.hooks.map((x) => x.bindingId)).toEqual(["first", "second"]);
    expect(tasks.mock.calls.map(([, steps]) => steps.length)).toEqual([2]);
    expect(named).toEqual([{ point: "tool.after", bindingId: "first" }]);

    // The second hook spins until its 300 ms limit: the record names it while it runs.
    h.activate({ revision: 2, bindings: [
      { id: "first", hookRef: "contract@1.0.0", point: "tool.after", config: { mode: "continue" } },
      { id: "second", hookRef: "contract-b@1.0.0", point: "tool.after", timeoutMs: 300, failurePolicy: "fail-open", config: { mode: "loop" } },
    ] });
    named.length = 0;
    tasks.mockClear();
    const slow = await h.tool(ctx, call, async () => "ok");
    expect(slow.ok).toBe(true);
    expect(tasks.mock.calls[0]![1].length).toBe(2);
    expect(slow.hooks.find((x) => x.bindingId === "second")?.error?.code).toBe("GUEST_TIMEOUT");
    expect(named).toEqual([{ point: "tool.after", bindingId: "first" }, { point: "tool.after", bindingId: "second" }]);
  } finally {
    tasks.mockRestore();
    await h.close();
  }
});
