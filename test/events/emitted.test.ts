/**
 * Every event the host emits, in the pipeline's contract scenarios: each is collected by a
 * listener and validated against its schema here (as well as by the host, which throws
 * outside production), and the expected kinds appear with the right correlation ids.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../host/index.js";
import { EVENT_SCHEMAS, validateEvent, type EventOf, type EventType, type SluiceEvent } from "../../abi/events/index.js";
import type { BindingInput } from "../../host/pipeline/release.js";
import type { ChatRequest, ChatResponse } from "../../host/boundary/chat.js";
import type { ToolCall } from "../../host/boundary/tool.js";
import { ERROR_CODES } from "../../host/errors/codes.js";
import { fixture } from "../helpers/fixtures.js";
import { twin } from "../contract/twin.js";

let host: Host;
let events: SluiceEvent[] = [];
let revision = 0;
beforeAll(async () => {
  host = createHost({ workers: 2, quarantine: { threshold: 2 } });
  await host.loadPlugin({ id: "contract", version: "1.0.0", wasm: fixture("contract-hook") });
  await host.loadPlugin({ id: "trap", version: "1.0.0", wasm: fixture("unreachable") });
  host.registerHook("contract", twin);
  host.observer.on((e) => { events.push(e); });
});
afterAll(() => host.close());
afterEach(() => { events = []; });

const ctx = { spaceId: "space-a", actorId: "u1", runId: "r1" };
const schema = { type: "object", properties: { q: { type: "string" }, trace: { type: "string" } }, additionalProperties: false };
const search = (callId = "call-1"): ToolCall => ({ toolId: "orders.search", name: "search", schema, arguments: { q: "shoes", trace: "" }, callId });
const chatRequest: ChatRequest = { model: "m1", messages: [{ role: "user", content: "hi" }] };
const answer: ChatResponse = { content: "hello", tool_calls: [], finish_reason: "stop", usage: { input_tokens: 3, output_tokens: 2 } };
const bind = (bindings: BindingInput[]) => host.activate({ revision: ++revision, bindings: bindings.map((b) => ({ timeoutMs: 2_000, ...b })) });

/** The events collected so far, each checked against its schema. */
async function collected(): Promise<SluiceEvent[]> {
  await host.observer.flush();
  for (const e of events) expect(validateEvent(e), JSON.stringify(e)).toEqual({ ok: true });
  return events;
}
const ofType = <T extends EventType>(list: SluiceEvent[], type: T) => list.filter((e): e is SluiceEvent & EventOf<T> => e.type === type);

describe("events the host emits", () => {
  it("a tool call: release.activated, requested, one hook.executed per hook, completed, all with the call's ids", async () => {
    const release = bind([
      { id: "append", hookRef: "contract@1.0.0", point: "tool.before", config: { mode: "append", tag: "x" } },
      { id: "view", hookRef: "contract", point: "tool.after", config: { mode: "continue" } },
    ]);
    const r = await host.tool(ctx, search(), async () => ({ rows: 3 }));
    expect(r.ok).toBe(true);
    const list = await collected();
    expect(list.map((e) => e.type)).toEqual(["release.activated", "tool.invocation.requested", "hook.executed", "hook.executed", "tool.invocation.completed"]);
    expect(ofType(list, "release.activated")[0]).toMatchObject({ revision: release.revision, order_mode: "staged", bindings: [{ binding_id: "append", point: "tool.before" }, { binding_id: "view", point: "tool.after" }] });
    for (const e of list.slice(1)) expect(e).toMatchObject({ operation_id: r.facts.operationId, call_id: "call-1", space_id: "space-a", run_id: "r1", instance_id: "main" });
    expect(ofType(list, "hook.executed").map((e) => [e.point, e.binding_id, e.outcome, e.error_code])).toEqual([["tool.before", "append", "patch_input", null], ["tool.after", "view", "continue", null]]);
    expect(ofType(list, "tool.invocation.completed")[0]).toMatchObject({ outcome: "succeeded", called: true, real_status: "succeeded", attempts: 1, short_circuited_by: null });
    // No plaintext by default: digests only.
    expect(ofType(list, "tool.invocation.requested")[0]).not.toHaveProperty("parameters");
    expect(ofType(list, "tool.invocation.completed")[0]).not.toHaveProperty("result");
  });

  it("a short-circuited tool call completes with called: false and the binding that served it", async () => {
    bind([{ id: "cache", hookRef: "contract", point: "tool.before", config: { mode: "short_circuit", result: { rows: 0 } } }]);
    let called = false;
    const r = await host.tool(ctx, search(), async () => { called = true; });
    expect(r.ok && r.output.view).toEqual({ rows: 0 });
    expect(called).toBe(false);
    expect(ofType(await collected(), "tool.invocation.completed")[0]).toMatchObject({ outcome: "short_circuited", called: false, real_status: "not_started", short_circuited_by: "cache" });
  });

  it("a rejected tool call fails with the hook's decision, a policy error, and the operation.error hooks reported", async () => {
    bind([
      { id: "deny", hookRef: "contract@1.0.0", point: "tool.before", config: { mode: "reject", code: "limit.exceeded", reason: "too many" } },
      { id: "diag", hookRef: "contract", point: "operation.error", config: { mode: "continue" } },
    ]);
    const r = await host.tool(ctx, search("call-9"), async () => 1);
    expect(!r.ok && r.error.code).toBe("HOOK_REJECTED");
    const list = await collected();
    expect(list.map((e) => e.type)).toEqual(["release.activated", "tool.invocation.requested", "hook.executed", "hook.executed", "tool.invocation.failed"]);
    expect(ofType(list, "hook.executed").map((e) => [e.point, e.outcome])).toEqual([["tool.before", "reject"], ["operation.error", "continue"]]);
    const failed = ofType(list, "tool.invocation.failed")[0]!;
    expect(failed).toMatchObject({
      call_id: "call-9", outcome: "rejected", called: false, real_status: "not_started", phase: "before",
      error_code: "HOOK_REJECTED", error_type: "policy", message: ERROR_CODES.HOOK_REJECTED.summary,
    });
    // The hook's reason is text (it may quote the arguments): only with payloads switched on.
    expect(failed.details).toEqual({ bindingId: "deny", hookCode: "limit.exceeded" });
  });

  it("a tool that throws fails in the operation phase, with its error's code and name but not its text", async () => {
    bind([]);
    await host.tool(ctx, search(), async () => { throw new TypeError("not found: shoes for jane@example.com"); }, { retries: 1 });
    const failed = ofType(await collected(), "tool.invocation.failed")[0]!;
    expect(failed).toMatchObject({ outcome: "failed", called: true, real_status: "failed", attempts: 2, phase: "operation", error_code: "OPERATION_FAILED", error_type: "operation" });
    expect(failed.message).toBe(ERROR_CODES.OPERATION_FAILED.summary);
    expect(failed.details).toEqual({ cause: { name: "TypeError" } });
    expect(JSON.stringify(failed)).not.toContain("jane@example.com");
  });

  it("a chat whose guest hook traps: hook.executed failed with GUEST_TRAP, agent.error with the hook family; then the plugin is quarantined", async () => {
    bind([{ id: "trap-b", hookRef: "trap@1.0.0", point: "model.chat.before" }]);
    const first = await host.chat(ctx, chatRequest, async () => answer);
    expect(!first.ok && first.error.code).toBe("HOOK_FAILED");
    await host.chat(ctx, chatRequest, async () => answer);
    const list = await collected();
    const hooks = ofType(list, "hook.executed");
    expect(hooks[0]).toMatchObject({ operation: "chat", point: "model.chat.before", binding_id: "trap-b", hook_ref: "trap@1.0.0", outcome: "failed", error_code: "GUEST_TRAP", call_id: null });
    expect(ofType(list, "agent.error")[0]).toMatchObject({ operation: "chat", phase: "before", error_code: "HOOK_FAILED", error_type: "hook", operation_id: first.facts.operationId, details: { bindingId: "trap-b", cause: { code: "GUEST_TRAP" } } });
    expect(ofType(list, "plugin.quarantined")[0]).toMatchObject({ plugin_ref: "trap@1.0.0", error_code: "GUEST_TRAP", failures: 2, until: null, binding_ids: ["trap-b"], reason: ERROR_CODES.GUEST_TRAP.summary, host_id: host.id });
    expect(host.quarantine.lift("trap@1.0.0")).toBe(true);
    expect(ofType(await collected(), "plugin.quarantine_lifted")[0]).toMatchObject({ plugin_ref: "trap@1.0.0", by: "operator" });
  });

  it("a successful chat, a streamed chat and an embedding report their hooks and no error", async () => {
    bind([
      { id: "chat-after", hookRef: "contract@1.0.0", point: "model.chat.after", config: { mode: "continue" } },
      { id: "chunk", hookRef: "contract", point: "model.chat.chunk", config: { mode: "continue" } },
      { id: "emb", hookRef: "contract", point: "model.embedding.before", config: { mode: "continue" } },
    ]);
    expect((await host.chat(ctx, chatRequest, async () => answer)).ok).toBe(true);
    const stream = host.chatStream(ctx, chatRequest, async function* () { yield { delta: "he" }; yield { delta: "llo", finish_reason: "stop" }; });
    for await (const _ of stream) { /* drain */ }
    expect((await stream.result).ok).toBe(true);
    expect((await host.embed(ctx, { model: "e1", texts: ["a"] }, async () => ({ vectors: [[1, 0]] }))).ok).toBe(true);
    const list = await collected();
    // One hook.executed per chunk stage; how many chunk stages a stream has is the stream's business.
    const pairs = [...new Set(ofType(list, "hook.executed").map((e) => `${e.operation} ${e.point}`))];
    expect(pairs).toEqual(["chat model.chat.after", "chat model.chat.chunk", "embedding model.embedding.before"]);
    expect(ofType(list, "agent.error")).toEqual([]);
    expect(list.filter((e) => e.type !== "hook.executed" && e.type !== "release.activated").map((e) => e.type)).toEqual(["model.chat.completed", "model.chat.completed", "model.embedding.completed"]);
  });

  it("a successful chat, a streamed one and a short-circuited one complete with model.chat.completed; an embedding with model.embedding.completed", async () => {
    bind([]);
    const plain = await host.chat({ ...ctx, purpose: "compaction" }, chatRequest, async () => ({ ...answer, tool_calls: [{ id: "t1", type: "function", function: { name: "search", arguments: "{}" } }], finish_reason: "tool_calls" }));
    const stream = host.chatStream(ctx, chatRequest, async function* () { yield { delta: "he" }; yield { delta: "llo", finish_reason: "stop", usage: { input_tokens: 4, output_tokens: 2 } }; });
    for await (const _ of stream) { /* drain */ }
    const streamed = await stream.result;
    const emb = await host.embed(ctx, { model: "e1", texts: ["a", "b"] }, async () => ({ vectors: [[1, 0, 0], [0, 1, 0]] }));
    bind([{ id: "cache", hookRef: "contract", point: "model.chat.before", config: { mode: "short_circuit", result: { content: "cached", finish_reason: "stop" } } }]);
    const served = await host.chat(ctx, chatRequest, async () => answer);
    expect([plain.ok, streamed.ok, emb.ok, served.ok]).toEqual([true, true, true, true]);
    const list = await collected();
    const chats = ofType(list, "model.chat.completed");
    expect(chats.map((e) => [e.operation_id, e.streamed, e.purpose, e.outcome, e.called, e.finish_reason, e.tool_call_count, e.usage])).toEqual([
      [plain.facts.operationId, false, "compaction", "succeeded", true, "tool_calls", 1, { input_tokens: 3, output_tokens: 2 }],
      [streamed.facts.operationId, true, "action", "succeeded", true, "stop", 0, { input_tokens: 4, output_tokens: 2 }],
      [served.facts.operationId, false, "action", "short_circuited", false, "stop", 0, { input_tokens: 0, output_tokens: 0 }],
    ]);
    expect(chats[2]).toMatchObject({ short_circuited_by: "cache", real_status: "not_started", attempts: 0, model: "m1", host_id: host.id, space_id: "space-a", run_id: "r1" });
    // Keyed with the deployment secret, as records are.
    expect(chats[0]!.content_sha256).toBe(host.digestOf("hello"));
    for (const c of chats) expect(c).not.toHaveProperty("content");
    expect(ofType(list, "model.embedding.completed")).toEqual([expect.objectContaining({
      operation_id: emb.facts.operationId, model: "e1", outcome: "succeeded", called: true, real_status: "succeeded", attempts: 1, count: 2, dimension: 3,
      signature: emb.ok ? emb.output.signature : "", revision: emb.facts.revision,
    })]);
  });

  it("every event names the schema it was emitted under and the host that sent it", async () => {
    bind([{ id: "view", hookRef: "contract", point: "tool.after", config: { mode: "continue" } }]);
    await host.tool(ctx, search(), async () => ({ rows: 1 }));
    const list = await collected();
    expect(list.map((e) => e.type)).toEqual(["release.activated", "tool.invocation.requested", "hook.executed", "tool.invocation.completed"]);
    for (const e of list) expect([e.type, e.schema_version, e.$schema, e.host_id]).toEqual([e.type, "4.0", EVENT_SCHEMAS[e.type].$id, host.id]);
  });

  it("lifecycle: agent.started / agent.stopped for runs and child agents; a rejected start is an agent.error and no start", async () => {
    bind([{ id: "gate", hookRef: "contract", point: "subtask.start", config: { mode: "reject", code: "depth", reason: "too deep" } }]);
    expect((await host.lifecycle("run.start", ctx, { run_id: "r1", instance_id: "main", task: "plan a trip" })).ok).toBe(true);
    expect((await host.lifecycle("subtask.start", { ...ctx, instanceId: "child-1" }, { run_id: "r1", instance_id: "child-1", parent_instance_id: "main" })).ok).toBe(false);
    expect((await host.lifecycle("run.end", ctx, { run_id: "r1", instance_id: "main", status: "succeeded" })).ok).toBe(true);
    expect((await host.lifecycle("run.start", ctx, { instance_id: "main" })).ok).toBe(false);
    const list = await collected();
    expect(list.filter((e) => e.type !== "hook.executed" && e.type !== "release.activated").map((e) => e.type)).toEqual(["agent.started", "agent.error", "agent.stopped", "agent.error"]);
    expect(ofType(list, "agent.started")[0]).toMatchObject({ run_id: "r1", instance_id: "main", parent_instance_id: null, actor_id: "u1" });
    expect(ofType(list, "agent.started")[0]).not.toHaveProperty("task");
    expect(ofType(list, "agent.error")[0]).toMatchObject({ operation: "subtask", phase: "lifecycle", instance_id: "child-1", error_code: "HOOK_REJECTED", error_type: "policy" });
    expect(ofType(list, "agent.stopped")[0]).toMatchObject({ status: "succeeded" });
    expect(ofType(list, "agent.error")[1]).toMatchObject({ operation: "run", operation_id: null, error_code: "PAYLOAD_INVALID", error_type: "validation" });
    expect(ofType(list, "hook.executed")[0]).toMatchObject({ operation: "subtask", point: "subtask.start", outcome: "reject", run_id: "r1", instance_id: "child-1" });
  });
});

describe("events of calls the host refuses", () => {
  it("are still valid events: an embedding refused for its index signature, a tool call with empty ids and no arguments", async () => {
    bind([]);
    const refused = await host.embed(ctx, { model: "e1", texts: ["a"] }, async () => ({ vectors: [[1]] }), { expectSignature: "not-this-one" });
    expect(!refused.ok && refused.error.code).toBe("EMBEDDING_SIGNATURE_MISMATCH");
    const invalid = await host.tool({ spaceId: "", runId: "" }, { toolId: "", name: "", schema: {}, arguments: null as unknown as Record<string, unknown>, callId: "" }, async () => 1);
    expect(!invalid.ok && invalid.error.code).toBe("PAYLOAD_INVALID");
    const list = await collected();
    expect(ofType(list, "agent.error")[0]).toMatchObject({ operation: "embedding", operation_id: null, phase: "before", error_code: "EMBEDDING_SIGNATURE_MISMATCH", error_type: "validation" });
    expect(ofType(list, "tool.invocation.failed")[0]).toMatchObject({ run_id: null, phase: "before", error_code: "PAYLOAD_INVALID", called: false });
  });
});

describe("events with payloads switched on", () => {
  it("carry error texts in full (bounded), which stay out of events by default", async () => {
    const { createObserver } = await import("../../host/index.js");
    const run = async (payloads: boolean) => {
      const observer = createObserver({ payloads });
      const local = createHost({ workers: 1, observer });
      const seen: SluiceEvent[] = [];
      observer.on((e) => { seen.push(e); });
      local.registerHook("fails", async () => { throw new Error("hook saw card 4111 1111 1111 1111"); });
      local.activate({ revision: 1, bindings: [{ id: "f", hookRef: "fails", point: "model.chat.before" }] });
      try {
        await local.tool(ctx, search(), async () => { throw new Error(`not found: ${"x".repeat(5_000)}`); });
        await local.chat(ctx, chatRequest, async () => answer);
        await observer.flush();
        return seen;
      } finally {
        await local.close();
      }
    };
    const quiet = await run(false);
    const loud = await run(true);
    const failedOf = (l: SluiceEvent[]) => ofType(l, "tool.invocation.failed")[0]!;
    const errorOf = (l: SluiceEvent[]) => ofType(l, "agent.error")[0]!;
    expect(JSON.stringify(quiet)).not.toContain("not found");
    expect(JSON.stringify(quiet)).not.toContain("4111");
    expect(errorOf(quiet)).toMatchObject({ error_code: "HOOK_FAILED", message: ERROR_CODES.HOOK_FAILED.summary, details: { bindingId: "f", hookRef: "fails", point: "model.chat.before", cause: { code: "HOOK_EXCEPTION" } } });
    expect(failedOf(loud).message).toHaveLength(2_000);
    expect(failedOf(loud).message.startsWith("tool operation failed: not found: xxx")).toBe(true);
    expect(failedOf(loud).details).toMatchObject({ cause: { name: "Error", message: expect.stringContaining("not found: ") } });
    expect(errorOf(loud).message).toContain("hook saw card 4111 1111 1111 1111");
    for (const e of [...quiet, ...loud]) expect(validateEvent(e)).toEqual({ ok: true });
  });

  it("carry the tool's arguments, its result view and the run's task in plain text", async () => {
    const { createObserver } = await import("../../host/index.js");
    const observer = createObserver({ payloads: true });
    const local = createHost({ workers: 1, observer });
    const seen: SluiceEvent[] = [];
    observer.on((e) => { seen.push(e); });
    try {
      await local.tool(ctx, search(), async () => ({ rows: 3 }));
      await local.lifecycle("run.start", ctx, { run_id: "r1", instance_id: "main", task: "plan a trip" });
      await local.chat(ctx, chatRequest, async () => answer);
      await observer.flush();
      for (const e of seen) expect(validateEvent(e)).toEqual({ ok: true });
      expect(ofType(seen, "tool.invocation.requested")[0]).toMatchObject({ parameters: { q: "shoes" } });
      expect(ofType(seen, "tool.invocation.completed")[0]).toMatchObject({ result: { rows: 3 } });
      expect(ofType(seen, "agent.started")[0]).toMatchObject({ task: "plan a trip" });
      expect(ofType(seen, "model.chat.completed")[0]).toMatchObject({ content: "hello", content_sha256: local.digestOf("hello") });
    } finally {
      await local.close();
    }
  });
});
