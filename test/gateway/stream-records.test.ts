/**
 * A streamed gateway call is an operation on record, named in its answer's
 * x-sluice-operation-id whichever way it went: streamed, refused before its first chunk, or
 * served by a hook's short circuit (the upstream never asked).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { createMemoryRecords } from "../../host/index.js";
import { startGateway, type GatewayUnderTest } from "./setup.js";

const records = createMemoryRecords();
let gw: GatewayUnderTest;
beforeAll(async () => { gw = await startGateway({ records }); });
afterAll(() => gw.close());

const stream = (content: string) => fetch(`${gw.url}/v1/chat/completions`, {
  method: "POST", headers: { authorization: `Bearer ${gw.key.key}`, "content-type": "application/json" },
  body: JSON.stringify({ model: "m1", messages: [{ role: "user", content }], stream: true }),
});

it("a streamed answer's header names its record: finished, the upstream called once", async () => {
  gw.bind([]);
  const calls = gw.stub.chatCalls;
  const res = await stream("hello there");
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(text).toContain("data: [DONE]");
  const id = res.headers.get("x-sluice-operation-id");
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  expect(gw.stub.chatCalls).toBe(calls + 1);
  expect(await records.get(id!)).toMatchObject({ operationId: id, phase: "finished", realStatus: "succeeded", outcome: "succeeded", identity: { operation: "chat", ctx: { spaceId: "space-a", actorId: gw.key.id } } });
});

it("a stream refused by a before hook is answered as an error that names its record, with the hook's audit row", async () => {
  gw.bind([{ id: "no", point: "model.chat.before", config: { mode: "reject", code: "policy.no", reason: "not today" } }]);
  const calls = gw.stub.chatCalls;
  const res = await stream("please");
  expect(res.status).toBe(403);
  const id = res.headers.get("x-sluice-operation-id");
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  expect(gw.stub.chatCalls).toBe(calls);
  expect(await records.get(id!)).toMatchObject({ phase: "finished", realStatus: "not_started", outcome: "rejected", error: { code: "HOOK_REJECTED" } });
  expect((await records.audit({ operationId: id! })).map((a) => [a.bindingId, a.outcome])).toEqual([["no", "reject"]]);
});

it("a stream served by a before hook's short circuit names its record too, and the upstream is not asked", async () => {
  gw.bind([{ id: "cached", point: "model.chat.before", config: { mode: "short_circuit", result: { content: "from the cache", finish_reason: "stop", usage: { input_tokens: 1, output_tokens: 3 } } } }]);
  const calls = gw.stub.chatCalls;
  const res = await stream("again");
  expect(res.status).toBe(200);
  expect(await res.text()).toContain("from the cache");
  const id = res.headers.get("x-sluice-operation-id");
  expect(id).toMatch(/^[0-9a-f-]{36}$/);
  expect(gw.stub.chatCalls).toBe(calls);
  expect(await records.get(id!)).toMatchObject({ phase: "finished", realStatus: "not_started", outcome: "short_circuited", shortCircuitedBy: "cached" });
});
