/**
 * The pipeline's contract (abi/README.md §4.3): every case runs twice, once against
 * the WebAssembly guest and once against its in-process TypeScript twin. Same calls,
 * same bindings, same expectations.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../host/index.js";
import type { BindingInput } from "../../host/pipeline/release.js";
import type { ToolCall } from "../../host/boundary/tool.js";
import type { ChatRequest, ChatResponse } from "../../host/boundary/chat.js";
import { fixture, BACKSTOP_FUEL } from "../helpers/fixtures.js";
import { twin } from "./twin.js";
import { until } from "../helpers/until.js";

let host: Host;
let revision = 0;
beforeAll(async () => {
  host = createHost({ workers: 2 });
  await host.loadPlugin({ id: "contract", version: "1.0.0", wasm: fixture("contract-hook"), limits: { fuel: BACKSTOP_FUEL } });
  host.registerHook("contract", twin);
  // Three identities for the same logic, so symmetric pairs can be told apart by plugin.
  for (const id of ["pair-a", "pair-b", "pair-c"]) {
    await host.loadPlugin({ id, version: "1.0.0", wasm: fixture("contract-hook"), limits: { fuel: BACKSTOP_FUEL } });
    host.registerHook(id, twin);
  }
});
afterAll(() => host.close());

const ctx = { spaceId: "space-a", actorId: "u1", runId: "r1" };
const schema = { type: "object", properties: { limit: { type: "integer", maximum: 100 }, trace: { type: "string" }, q: { type: "string" } }, additionalProperties: false };
const search = (args: Record<string, unknown> = { q: "shoes" }): ToolCall => ({ toolId: "orders.search", name: "search", schema, arguments: args, callId: "call-1" });
const chatRequest: ChatRequest = { model: "m1", messages: [{ role: "user", content: "hi" }] };
const answer: ChatResponse = { content: "hello", tool_calls: [{ id: "t1", type: "function", function: { name: "search", arguments: "{\"q\":\"x\"}" } }], finish_reason: "tool_calls", usage: { input_tokens: 3, output_tokens: 2 } };

for (const [kind, ref] of [["WebAssembly guest", "contract@1.0.0"], ["in-process hook", "contract"]] as const) {
  describe(`pipeline contract: ${kind}`, () => {
    const bind = (bindings: (Omit<BindingInput, "hookRef"> & { hookRef?: string })[], orderMode: "staged" | "symmetric" = "staged") =>
      host.activate({ revision: ++revision, orderMode, bindings: bindings.map((b) => ({ hookRef: ref, timeoutMs: 2_000, ...b })) });

    it("runs before hooks by priority, then binding order, each seeing the previous validated patch", async () => {
      bind([
        { id: "c", point: "tool.before", priority: 20, config: { mode: "append", tag: "c" } },
        { id: "a", point: "tool.before", priority: 10, config: { mode: "append", tag: "a" } },
        { id: "b", point: "tool.before", priority: 10, config: { mode: "append", tag: "b" } },
      ]);
      let seen: unknown;
      const r = await host.tool(ctx, search({ trace: "" }), async (args) => { seen = args; return { rows: 1 }; });
      expect(r.ok).toBe(true);
      expect(seen).toEqual({ trace: "abc" });
      expect(r.hooks.map((h) => h.bindingId)).toEqual(["a", "b", "c"]);
    });

    it("every hook gets the read-only context of its call", async () => {
      const release = bind([{ id: "ctx-reader", point: "tool.before", config: { mode: "context" } }]);
      const deadline = Date.now() + 60_000;
      const r = await host.tool({ ...ctx, instanceId: "child-2", parentOperationId: "op-parent", purpose: "action", deadline }, search(), async () => 1);
      expect(r.ok && r.annotations.ctx).toEqual({
        space_id: "space-a", actor_id: "u1", run_id: "r1", instance_id: "child-2", operation_id: r.facts.operationId,
        parent_operation_id: "op-parent", call_id: "call-1", point: "tool.before", purpose: "action",
        binding_id: "ctx-reader", published_revision: release.revision, deadline,
      });
    });

    it("orders after hooks the same way in staged mode and in reverse in symmetric mode", async () => {
      const bindings = ["x", "y", "z"].map((t, i) => ({ id: t, point: "tool.after" as const, priority: i, config: { mode: "append", tag: t } }));
      bind(bindings, "staged");
      const staged = await host.tool(ctx, search(), async () => "v:");
      bind(bindings, "symmetric");
      const symmetric = await host.tool(ctx, search(), async () => "v:");
      expect(staged.ok && staged.output.view).toBe("v:xyz");
      expect(symmetric.ok && symmetric.output.view).toBe("v:zyx");
    });

    it("applies a patch, re-validates the final arguments against the tool's schema, and never calls the tool when that fails", async () => {
      bind([{ id: "p", point: "tool.before", config: { mode: "patch", path: "/arguments/limit", value: 100 } }]);
      let calls = 0;
      const ok = await host.tool(ctx, search({ limit: 5000 }), async (args) => { calls++; return args; });
      expect(ok.ok && ok.facts.realResult).toEqual({ limit: 100 });
      bind([{ id: "p", point: "tool.before", config: { mode: "patch", path: "/arguments/limit", value: 5000 } }]);
      const refused = await host.tool(ctx, search({ limit: 1 }), async () => { calls++; return null; });
      expect(!refused.ok && refused.error.code).toBe("FINAL_CHECK_FAILED");
      expect(refused.facts.called).toBe(false);
      expect(calls).toBe(1);
    });

    it("the service's own final check runs on the final arguments and cannot be bypassed by a hook", async () => {
      bind([{ id: "p", point: "tool.before", config: { mode: "patch", path: "/arguments/q", value: "../../etc/passwd" } }]);
      let called = false;
      const r = await host.tool(ctx, search({ q: "ok" }), async () => { called = true; }, { finalCheck: (args) => String(args.q).includes("..") ? "path escapes the workspace" : true });
      expect(!r.ok && r.error).toMatchObject({ code: "FINAL_CHECK_FAILED", message: "path escapes the workspace" });
      expect(called).toBe(false);
    });

    it("refuses a patch of a field the point does not allow (tool.before cannot touch the schema)", async () => {
      bind([{ id: "evil", point: "tool.before", config: { mode: "patch", path: "/schema", value: {} } }]);
      let called = false;
      const r = await host.tool(ctx, search(), async () => { called = true; });
      expect(!r.ok && r.error.code).toBe("HOOK_FAILED");
      expect(!r.ok && r.error.details).toMatchObject({ bindingId: "evil", point: "tool.before", cause: { code: "PATCH_FORBIDDEN" } });
      expect(called).toBe(false);
    });

    it("model.chat.before cannot change the model, and model.chat.after cannot touch tool_calls (the protocol stays intact)", async () => {
      bind([
        { id: "m", point: "model.chat.before", failurePolicy: "fail-open", config: { mode: "patch", path: "/model", value: "expensive" } },
        { id: "t", point: "model.chat.after", failurePolicy: "fail-open", config: { mode: "patch", kind: "output", path: "/tool_calls", value: [] } },
      ]);
      let model = "";
      const r = await host.chat(ctx, chatRequest, async (req) => { model = req.model; return answer; });
      expect(model).toBe("m1");
      expect(r.ok && r.output.tool_calls).toEqual(answer.tool_calls);
      expect(r.hooks.filter((h) => h.outcome === "failed").map((h) => h.error?.code)).toEqual(["PATCH_FORBIDDEN", "PATCH_FORBIDDEN"]);
    });

    it("keeps the real result apart from the view the caller sees", async () => {
      bind([{ id: "v", point: "tool.after", config: { mode: "patch", kind: "output", path: "/view", value: "[redacted]" } }]);
      const r = await host.tool(ctx, search(), async () => ({ secret: "card 4111" }));
      expect(r.ok && r.output).toEqual({ status: "succeeded", view: "[redacted]", callId: "call-1" });
      expect(r.facts).toMatchObject({ called: true, realStatus: "succeeded", realResult: { secret: "card 4111" } });
    });

    it("does not run a main-only binding for a child instance", async () => {
      bind([{ id: "main-only", point: "tool.before", match: { instances: ["main"] }, config: { mode: "reject", code: "no" } }]);
      const main = await host.tool(ctx, search(), async () => 1);
      const child = await host.tool({ ...ctx, instanceId: "child-7" }, search(), async () => 1);
      expect(!main.ok && main.error.code).toBe("HOOK_REJECTED");
      expect(child.ok).toBe(true);
    });

    it("filters bindings by purpose", async () => {
      bind([{ id: "compaction-only", point: "model.chat.before", match: { purposes: ["compaction"] }, config: { mode: "reject", code: "compaction.refused" } }]);
      expect((await host.chat({ ...ctx, purpose: "action" }, chatRequest, async () => answer)).ok).toBe(true);
      const r = await host.chat({ ...ctx, purpose: "compaction" }, chatRequest, async () => answer);
      expect(!r.ok && r.error.details).toMatchObject({ hookCode: "compaction.refused" });
    });

    it("a reject stops the operation before it runs", async () => {
      bind([{ id: "guard", point: "model.chat.before", config: { mode: "reject", code: "prompt.denied", reason: "nope" } }]);
      let called = false;
      const r = await host.chat(ctx, chatRequest, async () => { called = true; return answer; });
      expect(!r.ok && r.error).toMatchObject({ code: "HOOK_REJECTED", details: { bindingId: "guard", hookCode: "prompt.denied", reason: "nope" } });
      expect(called).toBe(false);
      expect(r.facts).toMatchObject({ called: false, realStatus: "not_started" });
    });

    it("cancellation reaches a running hook and the operation never runs", async () => {
      bind([{ id: "slow", point: "tool.before", timeoutMs: 5_000, config: { mode: "loop" } }]);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      let called = false;
      const t0 = performance.now();
      const r = await host.tool({ ...ctx, signal: controller.signal }, search(), async () => { called = true; });
      expect(!r.ok && r.error.code).toBe("CALL_CANCELLED");
      expect(performance.now() - t0).toBeLessThan(2_000);
      expect(called).toBe(false);
    });

    it("a deadline cancels a running operation with DEADLINE_EXCEEDED and reports its state as unknown", async () => {
      bind([]);
      const r = await host.tool({ ...ctx, deadline: Date.now() + 60 }, search(), (_args, op) => new Promise((resolve) => op.signal.addEventListener("abort", () => resolve("late"))));
      expect(!r.ok && r.error.code).toBe("DEADLINE_EXCEEDED");
      expect(r.facts.realStatus).toBe("unknown");
    });

    it("short-circuit skips the operation, is recorded as not called, and in symmetric mode unwinds only the reached pairs in reverse", async () => {
      const pairRef = (t: string) => (ref.includes("@") ? `pair-${t}@1.0.0` : `pair-${t}`);
      const pairs = (["a", "b", "c"] as const).flatMap((t, i) => [
        { id: `${t}-before`, point: "model.chat.before" as const, priority: i, hookRef: pairRef(t), config: t === "b" ? { mode: "short_circuit", result: { content: "cached:" } } : { mode: "continue" } },
        { id: `${t}-after`, point: "model.chat.after" as const, priority: i, hookRef: pairRef(t), config: { mode: "append", tag: t } },
      ]);
      let called = false;
      const execute = async () => { called = true; return answer; };
      bind(pairs, "symmetric");
      const symmetric = await host.chat(ctx, chatRequest, execute);
      bind(pairs, "staged");
      const staged = await host.chat(ctx, chatRequest, execute);
      expect(called).toBe(false);
      expect(symmetric.ok && symmetric.facts).toMatchObject({ called: false, realStatus: "not_started", shortCircuitedBy: "b-before" });
      // c's before hook was never reached, so its after hook does not run; b then a unwind.
      expect(symmetric.ok && symmetric.output.content).toBe("cached:ba");
      expect(staged.ok && staged.output.content).toBe("cached:abc");
    });

    it("a before hook hands a carry value to its own after hook", async () => {
      bind([
        { id: "k-before", point: "tool.before", config: { mode: "carry", tag: "k" } },
        { id: "k-after", point: "tool.after", config: { mode: "carry", tag: "k" } },
      ], "symmetric");
      const r = await host.tool(ctx, search(), async () => "ok");
      expect(r.ok && r.annotations).toMatchObject({ carry_k: "k" });
    });

    it("a before hook hands a carry value to its own after hook when the messages hold content parts (a 1.0 guest is shown their texts)", async () => {
      bind([
        { id: "k-before", point: "model.chat.before", config: { mode: "carry", tag: "k" } },
        { id: "k-after", point: "model.chat.after", config: { mode: "carry", tag: "k" } },
      ], "symmetric");
      const request: ChatRequest = { model: "m", messages: [{ role: "user", content: [{ type: "text", text: "look" }, { type: "image_url", image_url: { url: "data:image/png;base64,aW1hZ2U=" } }] }] };
      const r = await host.chat(ctx, request, async () => ({ content: "a cat", tool_calls: [], finish_reason: "stop", usage: { input_tokens: 1, output_tokens: 2 } }));
      expect(r.ok && r.annotations).toMatchObject({ carry_k: "k" });
    });

    it("fail-open records a failing hook and goes on; fail-closed fails with HOOK_FAILED naming binding and phase", async () => {
      bind([{ id: "flaky", point: "tool.before", failurePolicy: "fail-open", config: { mode: "abort" } }]);
      const open = await host.tool(ctx, search(), async () => "done");
      expect(open.ok && open.output.view).toBe("done");
      expect(open.hooks[0]).toMatchObject({ bindingId: "flaky", outcome: "failed" });
      bind([{ id: "strict", point: "tool.before", failurePolicy: "fail-closed", config: { mode: "abort" } }]);
      const closed = await host.tool(ctx, search(), async () => "done");
      expect(!closed.ok && closed.error).toMatchObject({ code: "HOOK_FAILED", details: { bindingId: "strict", point: "tool.before" } });
    });

    it("a hook that runs past its time limit is handled by its failure policy and named", async () => {
      bind([
        { id: "first", point: "tool.before", config: { mode: "append", tag: "1" } },
        { id: "stuck", point: "tool.before", timeoutMs: 60, failurePolicy: "fail-open", config: { mode: "loop" } },
        { id: "third", point: "tool.before", config: { mode: "append", tag: "3" } },
      ]);
      let seen: unknown;
      const r = await host.tool(ctx, search({ trace: "" }), async (args) => { seen = args; return 1; });
      expect(r.ok).toBe(true);
      expect(seen).toEqual({ trace: "13" });
      expect(r.hooks.find((h) => h.bindingId === "stuck")?.error?.code).toBe("GUEST_TIMEOUT");
    });

    it("an observe-only binding may only continue", async () => {
      bind([{ id: "watcher", point: "tool.before", observeOnly: true, failurePolicy: "fail-closed", config: { mode: "patch", path: "/arguments/q", value: "x" } }]);
      let seen: unknown;
      const r = await host.tool(ctx, search({ q: "orig" }), async (args) => { seen = args; });
      expect(r.ok).toBe(true);
      expect(seen).toEqual({ q: "orig" });
      expect(r.hooks[0]?.error?.code).toBe("OUTCOME_NOT_ALLOWED");
    });

    it("retries reuse the validated input and do not run hooks again", async () => {
      bind([{ id: "once", point: "tool.before", config: { mode: "append", tag: "!" } }]);
      const inputs: unknown[] = [];
      const r = await host.tool(ctx, search({ trace: "" }), async (args, op) => { inputs.push(args); if (op.attempt < 3) throw new Error("flaky"); return "third time"; }, { retries: 2 });
      expect(r.ok && r.facts.attempts).toBe(3);
      expect(inputs).toEqual([{ trace: "!" }, { trace: "!" }, { trace: "!" }]);
      expect(r.hooks.filter((h) => h.point === "tool.before")).toHaveLength(1);
    });

    it("operation.error and operation.finally hooks are diagnostics: their failure never replaces the original error", async () => {
      bind([
        { id: "err", point: "operation.error", config: { mode: "abort" } },
        { id: "fin", point: "operation.finally", config: { mode: "continue", tag: "fin" } },
      ]);
      const r = await host.tool(ctx, search(), async () => { throw new Error("tool exploded"); });
      expect(!r.ok && r.error.code).toBe("OPERATION_FAILED");
      expect(!r.ok && r.error.message).toMatch(/tool exploded/);
      expect(r.hooks.map((h) => [h.point, h.outcome])).toEqual([["operation.error", "failed"], ["operation.finally", "continue"]]);
    });

    it("streams: redacts a pattern split across chunks, never emitting what a hook has not seen", async () => {
      bind([{ id: "mask", point: "model.chat.chunk", config: { mode: "mask" } }]);
      const stream = host.chatStream(ctx, chatRequest, async function* () {
        for (const delta of ["my se", "cr", "et is 42, sec", "ret!"]) yield { delta };
      });
      const emitted: string[] = [];
      for await (const c of stream) emitted.push(c.delta);
      expect(emitted.join("")).toBe("my ****** is 42, ******!");
      expect(emitted.some((d) => /sec|cr|et/.test(d))).toBe(false);
      const r = await stream.result;
      expect(r.ok && r.output.content).toBe("my ****** is 42, ******!");
    });

    it("streams: chunks that wait go through the hooks together, with the same result as one by one", async () => {
      bind([{ id: "mask", point: "model.chat.chunk", config: { mode: "mask" } }]);
      const parts = Array.from({ length: 120 }, (_, i) => (i % 3 === 0 ? "a sec" : i % 3 === 1 ? "ret b " : "c "));
      const original = host.sandbox.runChunks.bind(host.sandbox);
      let batches = 0;
      host.sandbox.runChunks = (...args) => { batches++; return original(...args); };
      try {
        const stream = host.chatStream(ctx, chatRequest, async function* () { for (const delta of parts) yield { delta }; });
        let out = "";
        let last = -1;
        for await (const c of stream) { out += c.delta; expect(c.chunk_index).toBeGreaterThan(last); last = c.chunk_index; }
        expect(out).toBe(parts.join("").replaceAll("secret", "******"));
        const r = await stream.result;
        expect(r.ok && r.hooks.filter((h) => h.point === "model.chat.chunk")).toHaveLength(parts.length + 1);
        if (ref.includes("@")) expect(batches).toBeGreaterThan(0);
      } finally {
        host.sandbox.runChunks = original;
      }
    });

    it("streams: a block ends the stream with an error and nothing after it is emitted", async () => {
      bind([{ id: "guard", point: "model.chat.chunk", config: { mode: "block-on", needle: "BAD" } }]);
      let produced = 0;
      const stream = host.chatStream(ctx, chatRequest, async function* () {
        for (const delta of ["fine ", "also fine ", "BAD", "never"]) { produced++; yield { delta }; }
      });
      const emitted: string[] = [];
      await expect((async () => { for await (const c of stream) emitted.push(c.delta); })()).rejects.toMatchObject({ code: "HOOK_BLOCKED" });
      expect(emitted.join("")).toBe("fine also fine ");
      expect((await stream.result).ok).toBe(false);
      expect(produced).toBeLessThanOrEqual(4);
    });

    it("streams: chunk hooks get chunk_index, is_last and a stable request id; tool-call deltas are assembled", async () => {
      bind([{ id: "tagger", point: "model.chat.chunk", config: { mode: "continue", tag: "seen" } }]);
      const stream = host.chatStream(ctx, chatRequest, async function* () {
        yield { tool_calls: [{ index: 0, id: "call_a", function: { name: "search", arguments: "{\"q\":" } }] };
        yield { tool_calls: [{ index: 0, function: { arguments: "\"shoes\"}" } }], finish_reason: "tool_calls" };
      });
      const chunks = [];
      for await (const c of stream) chunks.push(c);
      expect(chunks.at(-1)?.is_last).toBe(true);
      const r = await stream.result;
      expect(r.ok && r.output.tool_calls).toEqual([{ id: "call_a", type: "function", function: { name: "search", arguments: "{\"q\":\"shoes\"}" } }]);
      // Two chunks from the model, then the empty last chunk that flushes holds.
      expect(r.hooks.filter((h) => h.point === "model.chat.chunk")).toHaveLength(3);
    });

    it("embeddings: before may transform texts but must keep their count; the signature follows the chain", async () => {
      bind([{ id: "trim", point: "model.embedding.before", config: { mode: "texts" } }]);
      const sigA = host.embeddingSignature(ctx, "e5");
      let texts: string[] = [];
      const ok = await host.embed(ctx, { model: "e5", texts: [" a ", "b "] }, async (t) => { texts = t; return { vectors: t.map(() => [0.1, 0.2]) }; }, { expectSignature: sigA });
      expect(texts).toEqual(["a", "b"]);
      expect(ok.ok && ok.output).toMatchObject({ dimension: 2, signature: sigA });

      const shape = await host.embed(ctx, { model: "e5", texts: ["a"] }, async () => ({ vectors: [[1], [2]] }));
      expect(!shape.ok && shape.error.code).toBe("EMBEDDING_SHAPE_INVALID");

      bind([{ id: "trim", point: "model.embedding.before", config: { mode: "texts", drop: true } }]);
      expect(host.embeddingSignature(ctx, "e5")).not.toBe(sigA);
      const mismatch = await host.embed(ctx, { model: "e5", texts: ["a"] }, async () => ({ vectors: [[1]] }), { expectSignature: sigA });
      expect(!mismatch.ok && mismatch.error.code).toBe("EMBEDDING_SIGNATURE_MISMATCH");
      const count = await host.embed(ctx, { model: "e5", texts: ["a"] }, async () => ({ vectors: [[1]] }));
      expect(!count.ok && count.error.details).toMatchObject({ cause: { code: "PATCH_INVALID" } });
    });

    it("a new hook bound by a release changes behaviour without any change to the calling code", async () => {
      const callingCode = () => host.tool(ctx, search({ trace: "" }), async (args) => args);
      bind([]);
      const before = await callingCode();
      bind([{ id: "new", point: "tool.before", config: { mode: "append", tag: "+" } }]);
      const after = await callingCode();
      expect(before.ok && before.facts.realResult).toEqual({ trace: "" });
      expect(after.ok && after.facts.realResult).toEqual({ trace: "+" });
    });

    it("consecutive guest hooks of a stage cost one thread hop", async () => {
      bind(["1", "2", "3", "4"].map((t) => ({ id: `h${t}`, point: "tool.before" as const, config: { mode: "append", tag: t } })));
      const original = host.sandbox.runStage.bind(host.sandbox);
      let tasks = 0;
      host.sandbox.runStage = (...args) => { tasks++; return original(...args); };
      try {
        const r = await host.tool(ctx, search({ trace: "" }), async (args) => args);
        expect(r.ok && r.facts.realResult).toEqual({ trace: "1234" });
        expect(tasks).toBe(ref.includes("@") ? 1 : 0);
      } finally {
        host.sandbox.runStage = original;
      }
    });

    it("an operation in flight finishes on the release it started with", async () => {
      bind([{ id: "v1", point: "tool.after", config: { mode: "append", tag: "1" } }]);
      let running = false;
      const started = host.tool(ctx, search(), async () => { running = true; await new Promise((r) => setTimeout(r, 30)); return "r"; });
      await until(() => running);
      const newer = bind([{ id: "v2", point: "tool.after", config: { mode: "append", tag: "2" } }]);
      const r = await started;
      expect(r.ok && r.output.view).toBe("r1");
      expect(r.facts.revision).toBe(newer.revision - 1);
    });
  });
}
