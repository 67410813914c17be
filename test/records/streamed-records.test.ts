/**
 * A streamed chat call is an operation like any other (records/journal.ts): "running" is on
 * record before the upstream is asked, the real result before the first after hook runs,
 * the ending before the last chunk is handed out; its hooks are audited; a "running"
 * write that fails refuses the call.
 */
import { afterAll, expect, it } from "vitest";
import { createHost } from "../../host/index.js";
import type { StreamChunk } from "../../host/boundary/stream.js";
import { ctx, request } from "./scenarios.js";
import { firstInsertFails, slowRecords } from "./phase-stores.js";
import { until } from "../helpers/until.js";

const { inner, completed, store: slow } = slowRecords();
const host = createHost({ workers: 1, records: slow });
afterAll(() => host.close());

/** Reads the whole stream; what the writes had completed when the source was asked and when the last chunk came. */
async function streamed(h = host, pieces = ["Hel", "lo"]) {
  let atSource: string[] | undefined;
  let sourceCalls = 0;
  const stream = h.chatStream(ctx, request, async function* (): AsyncGenerator<StreamChunk> {
    sourceCalls++;
    atSource = [...completed];
    for (const delta of pieces) yield { delta };
    yield { finish_reason: "stop", usage: { input_tokens: 3, output_tokens: 2 } };
  });
  let text = "";
  let atLast: string[] | undefined;
  let error: unknown;
  try {
    for await (const chunk of stream) { text += chunk.delta; if (chunk.is_last) atLast = [...completed]; }
  } catch (err) {
    error = err;
  }
  return { text, atSource, atLast, sourceCalls, error, result: await stream.result };
}

it("asks the upstream only once 'running' is on record, and ends the record before the last chunk: two writes without hooks", async () => {
  host.activate({ revision: 1, bindings: [] });
  completed.length = 0;
  const { text, atSource, atLast, result } = await streamed();
  expect(result.ok).toBe(true);
  expect(text).toBe("Hello");
  expect(atSource).toEqual(["insert operation/running"]);
  expect(atLast).toEqual(["insert operation/running", "update finished/succeeded"]);
  expect(completed).toEqual(["insert operation/running", "update finished/succeeded"]);
  expect(result.facts.recordError).toBeUndefined();
  expect(await inner.get(result.facts.operationId)).toMatchObject({
    phase: "finished", realStatus: "succeeded", outcome: "succeeded", owner: null,
    identity: { operation: "chat", beforePoint: "model.chat.before", afterPoint: "model.chat.after" },
    usage: { input_tokens: 3, output_tokens: 2 },
  });
});

it("audits the before and after hooks, and stores the real result before the first after hook runs", async () => {
  let atAfterHook: string[] | undefined;
  let storedAtHook: unknown;
  host.registerHook("seen", async () => ({ kind: "continue" }));
  host.registerHook("look", async (req) => {
    atAfterHook = [...completed];
    storedAtHook = await inner.result(String((req.context as { operation_id: string }).operation_id));
    return { kind: "continue" };
  });
  host.activate({ revision: 2, bindings: [{ id: "seen-before", hookRef: "seen", point: "model.chat.before" }, { id: "look-after", hookRef: "look", point: "model.chat.after" }] });
  completed.length = 0;
  const { text, result } = await streamed();
  expect(result.ok).toBe(true);
  expect(text).toBe("Hello");
  expect(atAfterHook).toEqual(["insert operation/running", "update after/succeeded +result"]);
  expect(storedAtHook).toMatchObject({ real: { content: "Hello", finish_reason: "stop" } });
  expect(completed).toEqual(["insert operation/running", "update after/succeeded +result", "update finished/succeeded"]);
  const id = result.facts.operationId;
  expect((await inner.audit({ operationId: id })).map((a) => [a.point, a.bindingId, a.outcome])).toEqual([
    ["model.chat.before", "seen-before", "continue"], ["model.chat.after", "look-after", "continue"],
  ]);
  // A finished operation keeps no real result.
  expect(await inner.result(id)).toBeUndefined();
  expect(await inner.get(id)).toMatchObject({ phase: "finished", completed: [{ point: "model.chat.before", bindingId: "seen-before" }, { point: "model.chat.after", bindingId: "look-after" }] });
});

it("a stream its consumer stops reading ends its record as cancelled, its real status unknown", async () => {
  host.activate({ revision: 3, bindings: [] });
  completed.length = 0;
  const stream = host.chatStream(ctx, request, async function* (): AsyncGenerator<StreamChunk> {
    yield { delta: "first" };
    await new Promise((resolve) => setTimeout(resolve, 50));
    yield { delta: "never read" };
  });
  for await (const chunk of stream) { expect(chunk.delta).toBe("first"); break; }
  const result = await stream.result;
  expect(!result.ok && result.error.code).toBe("CALL_CANCELLED");
  expect(await inner.get(result.facts.operationId)).toMatchObject({ phase: "finished", realStatus: "unknown", outcome: "cancelled", error: { code: "CALL_CANCELLED" } });
});

it("a 'running' write that fails refuses the stream before the upstream is asked, and the ending still records it", async () => {
  const { store, flaky } = firstInsertFails();
  const h = createHost({ workers: 1, records: flaky });
  try {
    h.registerHook("seen", async () => ({ kind: "continue" }));
    h.activate({ revision: 1, bindings: [{ id: "seen-before", hookRef: "seen", point: "model.chat.before" }] });
    const { text, sourceCalls, error, result } = await streamed(h);
    expect(sourceCalls).toBe(0);
    expect(text).toBe("");
    expect(error).toMatchObject({ code: "STORE_UNAVAILABLE" });
    expect(!result.ok && result.error.code).toBe("STORE_UNAVAILABLE");
    expect(await store.get(result.facts.operationId)).toMatchObject({ phase: "finished", realStatus: "not_started", outcome: "failed", error: { code: "STORE_UNAVAILABLE" } });
    expect((await store.audit({ operationId: result.facts.operationId })).map((a) => a.bindingId)).toEqual(["seen-before"]);
  } finally {
    await h.close();
  }
});

it("a stream its consumer stops while the before hooks still run is cancelled before the upstream is asked, its real status not_started", async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => { release = resolve; });
  let entered = false;
  host.registerHook("slow-before", async () => { entered = true; await gate; return { kind: "continue" }; });
  host.activate({ revision: 5, bindings: [{ id: "slow-before", hookRef: "slow-before", point: "model.chat.before" }] });
  let sourceCalls = 0;
  const stream = host.chatStream(ctx, request, async function* (): AsyncGenerator<StreamChunk> {
    sourceCalls++;
    yield { delta: "never asked" };
  });
  const reader = stream[Symbol.asyncIterator]();
  const first = reader.next();
  expect(await until(() => entered)).toBe(true);
  const stopped = reader.return!(undefined);
  release();
  await Promise.allSettled([first, stopped]);
  const result = await stream.result;
  expect(!result.ok && result.error.code).toBe("CALL_CANCELLED");
  expect(sourceCalls).toBe(0);
  expect(await inner.get(result.facts.operationId)).toMatchObject({ phase: "finished", realStatus: "not_started", outcome: "cancelled" });
});
