/**
 * No input a caller can send turns into "a bug in Sluice": the host checks the call (its
 * context, then its payload) before it builds any event from it, returns PAYLOAD_INVALID
 * naming the field, and still leaves a valid event saying the call was refused, in
 * "throw" mode (tests) and in "drop" mode (production) alike.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createHost, createObserver, type Host, type Observer } from "../../host/index.js";
import { validateEvent, type EventOf, type EventType, type SluiceEvent } from "../../abi/events/index.js";
import type { CallContext } from "../../host/engine/call-types.js";
import type { ToolCall } from "../../host/boundary/tool.js";
import type { ChatResponse } from "../../host/boundary/chat.js";
import { ERROR_CODES } from "../../host/errors/codes.js";

const noCallId = { toolId: "t", name: "t", schema: { type: "object" }, arguments: {} } as unknown as ToolCall;
const goodCall: ToolCall = { ...noCallId, callId: "c1" };
const answer: ChatResponse = { content: "hi", tool_calls: [], finish_reason: "stop", usage: { input_tokens: 1, output_tokens: 1 } };
const noSpace = {} as CallContext;

interface Setup { host: Host; observer: Observer; events: SluiceEvent[]; reported: string[] }
const setups: Record<"throw" | "drop", Setup> = {} as Record<"throw" | "drop", Setup>;
beforeAll(() => {
  for (const policy of ["throw", "drop"] as const) {
    const reported: string[] = [];
    const observer = createObserver({ invalidEvents: policy, report: (message) => { reported.push(message); } });
    const host = createHost({ workers: 1, observer, hostId: `host-${policy}` });
    const events: SluiceEvent[] = [];
    host.registerHook("diag", async () => ({ kind: "continue" }));
    host.activate({ revision: 1, bindings: [{ id: "diag", hookRef: "diag", point: "operation.error" }] });
    observer.on((e) => { events.push(e); });
    setups[policy] = { host, observer, events, reported };
  }
});
afterAll(async () => { for (const s of Object.values(setups)) await s.host.close(); });
afterEach(() => { for (const s of Object.values(setups)) s.events.length = 0; });

async function settled(s: Setup): Promise<SluiceEvent[]> {
  await s.observer.flush();
  for (const e of s.events) expect(validateEvent(e), JSON.stringify(e)).toEqual({ ok: true });
  // Nothing the caller sent made the host build an invalid event.
  expect(s.reported).toEqual([]);
  expect((await s.observer.registry.getSingleMetric("sluice_events_invalid_total")!.get()).values.reduce((n, v) => n + v.value, 0)).toBe(0);
  return s.events;
}
const ofType = <T extends EventType>(list: SluiceEvent[], type: T) => list.filter((e): e is SluiceEvent & EventOf<T> => e.type === type);

describe.each(["throw", "drop"] as const)("a call the host refuses, with invalidEvents: %s", (policy) => {
  it("a tool call without callId is PAYLOAD_INVALID naming call_id; the tool never runs; a valid failed event says so", async () => {
    const s = setups[policy];
    let ran = false;
    const r = await s.host.tool({ spaceId: "s" }, noCallId, async () => { ran = true; });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error.code).toBe("PAYLOAD_INVALID");
    expect(!r.ok && r.error.message).toBe("tool.before payload is invalid: payload must have required property 'call_id'");
    expect(ran).toBe(false);
    const list = await settled(s);
    // No request event: the call never became a request. The diagnostic hook did run.
    expect(list.map((e) => e.type)).toEqual(["hook.executed", "tool.invocation.failed"]);
    expect(ofType(list, "hook.executed")[0]).toMatchObject({ point: "operation.error", call_id: null, host_id: `host-${policy}` });
    expect(ofType(list, "tool.invocation.failed")[0]).toMatchObject({
      host_id: `host-${policy}`, space_id: "s", operation_id: r.facts.operationId, call_id: null, tool_id: "t", tool_name: "t",
      outcome: "failed", called: false, real_status: "not_started", phase: "before",
      error_code: "PAYLOAD_INVALID", error_type: "validation", message: ERROR_CODES.PAYLOAD_INVALID.summary,
      details: { point: "tool.before", field: "/call_id" },
    });
  });

  it("a tool call whose context has no spaceId is refused before anything begins, naming ctx.spaceId", async () => {
    const s = setups[policy];
    let ran = false;
    const r = await s.host.tool(noSpace, goodCall, async () => { ran = true; });
    expect(!r.ok && [r.error.code, r.error.message]).toEqual(["PAYLOAD_INVALID", "ctx.spaceId must be a non-empty string, got undefined"]);
    expect(ran).toBe(false);
    expect(r.facts).toMatchObject({ operationId: "", called: false, realStatus: "not_started", attempts: 0 });
    const list = await settled(s);
    expect(list.map((e) => e.type)).toEqual(["tool.invocation.failed"]);
    expect(list[0]).toMatchObject({ space_id: null, operation_id: null, call_id: "c1", phase: "before", error_code: "PAYLOAD_INVALID", details: { field: "ctx.spaceId" } });
  });

  it("chat, streamed chat, embedding and lifecycle calls with a bad context are refused with a valid agent.error", async () => {
    const s = setups[policy];
    const chat = await s.host.chat({ spaceId: "s", runId: 7 } as unknown as CallContext, { model: "m", messages: [] }, async () => answer);
    expect(!chat.ok && [chat.error.code, chat.error.message]).toEqual(["PAYLOAD_INVALID", "ctx.runId must be a string when given, got number"]);
    const stream = s.host.chatStream(noSpace, { model: "m", messages: [] }, async function* () { yield { delta: "x" }; });
    const chunks: unknown[] = [];
    for await (const c of stream) chunks.push(c);
    expect(chunks).toEqual([]);
    const streamed = await stream.result;
    expect(!streamed.ok && streamed.error.code).toBe("PAYLOAD_INVALID");
    const emb = await s.host.embed({ spaceId: "s", purpose: "nonsense" } as unknown as CallContext, { model: "e", texts: ["a"] }, async () => ({ vectors: [[1]] }));
    expect(!emb.ok && emb.error.message).toBe("ctx.purpose must be one of action, compaction, completion, embedding, got \"nonsense\"");
    const life = await s.host.lifecycle("run.start", noSpace, { run_id: "r1", instance_id: "main" });
    expect(!life.ok && life.error.code).toBe("PAYLOAD_INVALID");
    const list = await settled(s);
    expect(list.map((e) => e.type)).toEqual(["agent.error", "agent.error", "agent.error", "agent.error"]);
    expect(ofType(list, "agent.error").map((e) => [e.operation, e.operation_id, e.phase, e.error_code, (e.details as { field?: string }).field])).toEqual([
      ["chat", null, "before", "PAYLOAD_INVALID", "ctx.runId"],
      ["chat", null, "before", "PAYLOAD_INVALID", "ctx.spaceId"],
      ["embedding", null, "before", "PAYLOAD_INVALID", "ctx.purpose"],
      ["run", null, "lifecycle", "PAYLOAD_INVALID", "ctx.spaceId"],
    ]);
  });

  it("a call that is not an object at all is refused, naming it", async () => {
    const s = setups[policy];
    const r = await s.host.tool({ spaceId: "s" }, null as unknown as ToolCall, async () => 1);
    expect(!r.ok && [r.error.code, r.error.message]).toEqual(["PAYLOAD_INVALID", "call must be an object, got null"]);
    const c = await s.host.chat({ spaceId: "s" }, undefined as never, async () => answer);
    expect(!c.ok && c.error.message).toBe("request must be an object, got undefined");
    const list = await settled(s);
    expect(list.map((e) => [e.type, (e as { details: { field?: string } }).details.field])).toEqual([["tool.invocation.failed", "call"], ["agent.error", "request"]]);
    expect(ofType(list, "tool.invocation.failed")[0]).toMatchObject({ call_id: null, tool_id: null, tool_name: null, operation_id: null });
  });

  it("a tool call whose schema does not compile is refused at the entry, naming call.schema, before any hook runs", async () => {
    const s = setups[policy];
    const r = await s.host.tool({ spaceId: "s" }, { ...goodCall, schema: { type: "nope" } }, async () => 1);
    expect(!r.ok && r.error.code).toBe("PAYLOAD_INVALID");
    expect(!r.ok && r.error.message.startsWith("call.schema is not a JSON Schema the host can compile: schema is invalid: data/type must be equal to one of the allowed values")).toBe(true);
    const list = await settled(s);
    expect(list.map((e) => e.type)).toEqual(["tool.invocation.failed"]);
    expect(list[0]).toMatchObject({ operation_id: null, call_id: "c1", error_code: "PAYLOAD_INVALID", details: { field: "call.schema" } });
  });

  it("a chat whose request fails the point schema is PAYLOAD_INVALID with the field's pointer, after the context passed", async () => {
    const s = setups[policy];
    const r = await s.host.chat({ spaceId: "s" }, { model: "m", messages: [{ role: "user", content: 5 }] } as never, async () => answer);
    expect(!r.ok && r.error.code).toBe("PAYLOAD_INVALID");
    const list = await settled(s);
    expect(ofType(list, "agent.error")[0]).toMatchObject({ operation: "chat", operation_id: r.facts.operationId, phase: "before", details: { point: "model.chat.before", field: "/messages/0/content" } });
  });
});

describe("the host's own options", () => {
  it("refuse an empty hostId", () => {
    expect(() => createHost({ hostId: "" })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", message: "the hostId option must be a non-empty string" }));
  });
});
