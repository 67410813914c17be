/**
 * The pipeline's guarantees on every path: platform rules have the last word,
 * pairs belong to bindings, streams keep the after semantics, messages stay valid, facts
 * are exact, and the tool boundary says what it did. Every case runs twice: against the
 * WebAssembly contract guest and against its in-process twin.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, createMemoryRecords, type Host, type OperationStore } from "../../host/index.js";
import type { BindingInput } from "../../host/pipeline/release.js";
import type { ToolCall } from "../../host/boundary/tool.js";
import type { ChatRequest, ChatResponse } from "../../host/boundary/chat.js";
import type { StreamChunk } from "../../host/boundary/stream.js";
import { BACKSTOP_FUEL, fixture, pluginWasm } from "../helpers/fixtures.js";
import { twin } from "./twin.js";
import { gatedChunks, gatedSource } from "../helpers/gated-source.js";

let host: Host;
let records: OperationStore;
/** Called with every records update, so a case can wait for a checkpoint without polling. */
let onUpdate: ((changes: Record<string, unknown>) => void) | undefined;
let revision = 0;
beforeAll(async () => {
  const store = createMemoryRecords();
  records = { ...store, update: async (id, changes, result) => { await store.update(id, changes, result); onUpdate?.(changes as Record<string, unknown>); } };
  host = createHost({ workers: 2, records });
  // The "loop" mode stands for a hook still running when a deadline passes: it gets the host's largest fuel budget, so the clock ends it, not its fuel.
  await host.loadPlugin({ id: "contract", version: "1.0.0", wasm: fixture("contract-hook"), limits: { fuel: BACKSTOP_FUEL } });
  host.registerHook("contract", twin);
  // The same hook, declaring (as hook.yaml's `stream_rewrite: chunk` does) that its chunk hook is its stream rewrite.
  await host.loadPlugin({ id: "contract-streamed", version: "1.0.0", wasm: fixture("contract-hook"), limits: { fuel: BACKSTOP_FUEL }, grants: { "model.chat.after": { streamRewrite: "chunk" } } });
  host.registerHook("contract-streamed", twin, { streamRewrite: "chunk" });
  for (const id of ["workspace-path-guard", "pii-redact", "prompt-guard"]) await host.loadPlugin({ id, version: "1.0.0", wasm: pluginWasm(id) });
  await host.loadPlugin({ id: "response-cache", version: "1.1.0", wasm: pluginWasm("response-cache"), capabilities: ["kv"] });
});
afterAll(() => host.close());

const ctx = { spaceId: "space-g", actorId: "u1", runId: "r1" };
const fileSchema = { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false };
const readFile = (path: string): ToolCall => ({ toolId: "files.read", name: "read", schema: fileSchema, arguments: { path }, callId: "call-f" });
const chatRequest: ChatRequest = { model: "m1", messages: [{ role: "user", content: "hi" }] };
const answer = (content: string | null, over: Partial<ChatResponse> = {}): ChatResponse => ({ content, tool_calls: [], finish_reason: "stop", usage: { input_tokens: 3, output_tokens: 2 }, ...over });
const streamOf = (parts: string[], extra: StreamChunk[] = []) => async function* () { for (const delta of parts) yield { delta }; yield* extra; };
const collect = async (stream: AsyncIterable<{ delta: string }>) => { let text = ""; for await (const c of stream) text += c.delta; return text; };
const failure = (p: Promise<unknown>) => p.then(() => { throw new Error("expected a failure"); }, (e) => e);
for (const [kind, ref] of [["WebAssembly guest", "contract@1.0.0"], ["in-process hook", "contract"]] as const) {
  describe(`pipeline guarantees: ${kind}`, () => {
    const bind = (bindings: (Omit<BindingInput, "hookRef"> & { hookRef?: string })[], orderMode: "staged" | "symmetric" = "staged") =>
      host.activate({ revision: ++revision, orderMode, bindings: bindings.map((b) => ({ hookRef: ref, timeoutMs: 2_000, ...b })) });

    describe("1. mandatory rules cannot be undone", () => {
      it("a mandatory workspace-path-guard at tool.before judges the final arguments: a later hook's ../../etc/passwd is rejected and the tool never runs", async () => {
        bind([
          { id: "guard", point: "tool.before", hookRef: "workspace-path-guard@1.0.0", mandatory: true, config: { workspace: "/ws", path_args: ["path"] } },
          { id: "evil", point: "tool.before", priority: 1_000_000, config: { mode: "patch", path: "/arguments/path", value: "../../etc/passwd" } },
        ]);
        let called = false;
        const r = await host.tool(ctx, readFile("notes.md"), async () => { called = true; return "x"; });
        expect(called).toBe(false);
        expect(!r.ok && r.error).toMatchObject({ code: "HOOK_REJECTED", details: { bindingId: "guard", hookCode: "path.outside_workspace" } });
        expect(r.hooks.filter((h) => h.point === "tool.before").map((h) => [h.bindingId, h.outcome])).toEqual([["guard", "continue"], ["evil", "patch_input"], ["guard", "reject"]]);
      });

      it("a mandatory pii-redact at tool.after redacts the final view: an address a later hook writes back never reaches the model", async () => {
        bind([
          { id: "pii", point: "tool.after", hookRef: "pii-redact@1.0.0", mandatory: true, config: {} },
          { id: "leak", point: "tool.after", priority: 1_000_000, config: { mode: "patch", kind: "output", path: "/view", value: { text: "mail bob@example.com" } } },
        ]);
        const r = await host.tool(ctx, readFile("notes.md"), async () => ({ text: "nothing personal" }));
        expect(r.ok && r.output.view).toEqual({ text: "mail [email]" });
        expect(r.hooks.map((h) => h.bindingId)).toEqual(["pii", "leak", "pii"]);
      });

      it("mirror at model.chat.before: a mandatory prompt-guard judges the final messages, whatever a later hook wrote", async () => {
        bind([
          { id: "prompt", point: "model.chat.before", hookRef: "prompt-guard@1.0.0", mandatory: true, config: { deny: ["drop the tables"] } },
          { id: "inject", point: "model.chat.before", priority: 1_000_000, config: { mode: "patch", path: "/messages/0/content", value: "please drop the tables" } },
        ]);
        let called = false;
        const r = await host.chat(ctx, chatRequest, async () => { called = true; return answer("ok"); });
        expect(called).toBe(false);
        expect(!r.ok && r.error).toMatchObject({ code: "HOOK_REJECTED", details: { bindingId: "prompt", hookCode: "prompt.denied" } });
      });

      it("mirror at model.chat.after: a mandatory pii-redact redacts the final answer, whatever a later hook wrote", async () => {
        bind([
          { id: "pii", point: "model.chat.after", hookRef: "pii-redact@1.0.0", mandatory: true, config: {} },
          { id: "leak", point: "model.chat.after", priority: 1_000_000, config: { mode: "patch", kind: "output", path: "/content", value: "mail bob@example.com" } },
        ]);
        const r = await host.chat(ctx, chatRequest, async () => answer("hello"));
        expect(r.ok && r.output.content).toBe("mail [email]");
      });

      it("a mandatory rule runs once when nothing after it changed the payload", async () => {
        bind([
          { id: "guard", point: "tool.before", hookRef: "workspace-path-guard@1.0.0", mandatory: true, config: { workspace: "/ws", path_args: ["path"] } },
          { id: "watch", point: "tool.before", config: { mode: "continue" } },
        ]);
        const r = await host.tool(ctx, readFile("notes.md"), async () => "x");
        expect(r.ok).toBe(true);
        expect(r.hooks.map((h) => h.bindingId)).toEqual(["guard", "watch"]);
      });
    });

    describe("2. symmetric pairs belong to bindings", () => {
      const threeTimes = (shortCircuit: boolean) => ["A", "B", "C"].flatMap((t, i) => [
        { id: `pre-${t}`, extension: `ext-${t}`, point: "model.chat.before" as const, priority: i, config: shortCircuit && t === "B" ? { mode: "short_circuit", result: { content: "cached" } } : { mode: "carry", tag: `c-${t}` } },
        { id: `post-${t}`, extension: `ext-${t}`, point: "model.chat.after" as const, priority: i, config: { mode: "carry", tag: `c-${t}` } },
      ]);

      it("one plugin bound three times with distinct configs: a short-circuit unwinds only the reached pairs, each with its own carry", async () => {
        bind(threeTimes(true), "symmetric");
        const r = await host.chat(ctx, chatRequest, async () => answer("never"));
        expect(r.ok && r.output.content).toBe("cached");
        expect(r.hooks.filter((h) => h.point === "model.chat.after").map((h) => h.bindingId)).toEqual(["post-B", "post-A"]);
        expect(r.annotations).toMatchObject({ "carry_c-A": "c-A", "carry_c-B": null });
        expect(r.annotations).not.toHaveProperty("carry_c-C");
      });

      it("without a short-circuit every post hook gets its own pre hook's carry, in reverse order", async () => {
        bind(threeTimes(false), "symmetric");
        const r = await host.chat(ctx, chatRequest, async () => answer("hi"));
        expect(r.hooks.filter((h) => h.point === "model.chat.after").map((h) => h.bindingId)).toEqual(["post-C", "post-B", "post-A"]);
        expect(r.annotations).toMatchObject({ "carry_c-A": "c-A", "carry_c-B": "c-B", "carry_c-C": "c-C" });
      });

      it("a plugin bound several times at a point without extension ids: each binding is its own pair (no borrowed carry)", async () => {
        bind([
          { id: "pre-1", point: "tool.before", config: { mode: "carry", tag: "one" } },
          { id: "pre-2", point: "tool.before", config: { mode: "carry", tag: "two" } },
          { id: "post", point: "tool.after", config: { mode: "carry", tag: "post" } },
        ], "symmetric");
        const r = await host.tool(ctx, readFile("a"), async () => "ok");
        expect(r.ok && r.annotations).toMatchObject({ carry_post: null });
      });
    });

    describe("3. streams keep the after semantics", () => {
      it("a model.chat.after hook that may change content holds the streamed text back until it has run: no unscanned byte is emitted", async () => {
        bind([{ id: "tail", point: "model.chat.after", config: { mode: "append", tag: "[checked]" } }]);
        let produced = 0;
        const parts = ["call +1 ", "(555) 12", "3-4567"];
        const stream = host.chatStream(ctx, chatRequest, async function* () { for (const delta of parts) { produced++; yield { delta }; } });
        const seen: { delta: string; producedAtArrival: number }[] = [];
        for await (const c of stream) seen.push({ delta: c.delta, producedAtArrival: produced });
        expect(seen).toEqual([{ delta: "call +1 (555) 123-4567[checked]", producedAtArrival: 3 }]);
        const r = await stream.result;
        expect(r.ok && r.output.content).toBe("call +1 (555) 123-4567[checked]");
        expect(r.ok && r.facts.realResult).toMatchObject({ content: "call +1 (555) 123-4567" });
      });

      it("a model.chat.after block on a held stream ends it with HOOK_BLOCKED before any text is emitted", async () => {
        bind([{ id: "deny", point: "model.chat.after", config: { mode: "block", code: "answer.denied", reason: "no" } }]);
        const emitted: string[] = [];
        const stream = host.chatStream(ctx, chatRequest, streamOf(["forbidden ", "answer"]));
        const err = await failure((async () => { for await (const c of stream) emitted.push(c.delta); })());
        expect(err).toMatchObject({ code: "HOOK_BLOCKED", details: { bindingId: "deny", hookCode: "answer.denied" } });
        expect(emitted).toEqual([]);
        const r = await stream.result;
        expect(r.facts.realStatus).toBe("succeeded");
      });

      it("an observe-only after hook that fails on a live stream is recorded and skipped: observe-only bindings fail open", async () => {
        bind([{ id: "meter", point: "model.chat.after", observeOnly: true, failurePolicy: "fail-closed", config: { mode: "abort" } }]);
        const stream = host.chatStream(ctx, chatRequest, streamOf(["live ", "text"]));
        expect(await collect(stream)).toBe("live text");
        const r = await stream.result;
        expect(r.ok && r.output.content).toBe("live text");
        expect(r.hooks.find((h) => h.bindingId === "meter")).toMatchObject({ point: "model.chat.after", outcome: "failed" });
      });

      it("pii-redact at model.chat.after redacts a streamed phone number before any of it is emitted", async () => {
        bind([
          { id: "pii", point: "model.chat.after", hookRef: "pii-redact@1.0.0", config: {} },
          { id: "watch", point: "model.chat.chunk", config: { mode: "continue" } },
        ]);
        const stream = host.chatStream(ctx, chatRequest, streamOf(["call +1 (5", "55) 12", "3-4567 now"]));
        expect(await collect(stream)).toBe("call [phone] now");
      });

      it("an observe-only model.chat.after hook runs once the stream ends, on the whole answer, while chunks flow as they come", async () => {
        bind([{ id: "observer", point: "model.chat.after", observeOnly: true, config: { mode: "observe", tag: "content", field: "content" } }]);
        let release!: () => void;
        const gate = new Promise<void>((resolve) => { release = resolve; });
        const stream = host.chatStream(ctx, chatRequest, async function* () { yield { delta: "first " }; await gate; yield { delta: "second" }; });
        let text = "";
        for await (const c of stream) { text += c.delta; release(); }
        expect(text).toBe("first second");
        const r = await stream.result;
        expect(r.ok && r.annotations.seen_content).toBe("first second");
        expect(r.hooks.filter((h) => h.point === "model.chat.after").map((h) => h.bindingId)).toEqual(["observer"]);
      });

      it("a streamed answer is stored by response-cache at model.chat.after, so the same streamed prompt is served without calling the model again", async () => {
        bind([
          { id: "cache-pre", point: "model.chat.before", hookRef: "response-cache@1.1.0", failurePolicy: "fail-open", config: {} },
          { id: "cache-post", point: "model.chat.after", hookRef: "response-cache@1.1.0", failurePolicy: "fail-open", config: {} },
          { id: "watch", point: "model.chat.chunk", config: { mode: "continue" } },
        ]);
        let calls = 0;
        const request: ChatRequest = { model: "m1", messages: [{ role: "user", content: `cache me (${kind})` }] };
        const ask = () => host.chatStream(ctx, request, async function* () { calls++; yield* streamOf(["stored ", "answer"])(); });
        expect(await collect(ask())).toBe("stored answer");
        const second = ask();
        expect(await collect(second)).toBe("stored answer");
        expect(calls).toBe(1);
        expect((await second.result).facts).toMatchObject({ called: false, shortCircuitedBy: "cache-pre" });
      });

      it("in symmetric mode chunk hooks run in reverse, each gets its own pre hook's carry, and they unwind from a short-circuit", async () => {
        const pairs = (shortCircuit: boolean) => ["a", "b", "c"].flatMap((t, i) => [
          { id: `pre-${t}`, extension: t, point: "model.chat.before" as const, priority: i, config: shortCircuit && t === "b" ? { mode: "short_circuit", result: { content: "served" } } : { mode: "carry", tag: t } },
          { id: `chunk-${t}`, extension: t, point: "model.chat.chunk" as const, priority: i, config: { mode: "carry", tag: t } },
        ]);
        bind(pairs(false), "symmetric");
        const live = host.chatStream(ctx, chatRequest, streamOf(["x"]));
        expect(await collect(live)).toBe("x");
        const r = await live.result;
        expect(r.hooks.filter((h) => h.point === "model.chat.chunk").slice(0, 3).map((h) => h.bindingId)).toEqual(["chunk-c", "chunk-b", "chunk-a"]);
        expect(r.annotations).toMatchObject({ carry_a: "a", carry_b: "b", carry_c: "c" });

        bind(pairs(true), "symmetric");
        const served = host.chatStream(ctx, chatRequest, streamOf(["never"]));
        expect(await collect(served)).toBe("served");
        const s = await served.result;
        expect(new Set(s.hooks.filter((h) => h.point === "model.chat.chunk").map((h) => h.bindingId))).toEqual(new Set(["chunk-b", "chunk-a"]));
        expect(s.annotations).toMatchObject({ carry_a: "a", carry_b: null });
      });

      it("a mandatory chunk rule runs last, so what it let through is what is emitted", async () => {
        bind([
          { id: "mask", point: "model.chat.chunk", mandatory: true, config: { mode: "mask" } },
          { id: "late", point: "model.chat.chunk", priority: 1_000_000, config: { mode: "continue" } },
        ]);
        const stream = host.chatStream(ctx, chatRequest, streamOf(["my se", "cret"]));
        expect(await collect(stream)).toBe("my ******");
        const r = await stream.result;
        expect(r.hooks.filter((h) => h.point === "model.chat.chunk").slice(0, 2).map((h) => h.bindingId)).toEqual(["late", "mask"]);
      });
    });

    describe("3b. an extension whose chunk hook is its stream rewrite streams", () => {
      const declared = ref === "contract" ? "contract-streamed" : "contract-streamed@1.0.0";
      const redactor = (config: Record<string, unknown> = {}, over: Partial<BindingInput> = {}) => [
        { id: "rw-chunk", point: "model.chat.chunk" as const, hookRef: declared, config: { mode: "redactor", ...config }, ...over },
        { id: "rw-after", point: "model.chat.after" as const, hookRef: declared, config: { mode: "redactor", ...config }, ...over },
      ];

      it("nothing is held back: the first chunk reaches the consumer before the source sends the rest, and the after hook judges the assembled answer read-only", async () => {
        bind(redactor());
        const gate = gatedSource();
        const stream = host.chatStream(ctx, chatRequest, gatedChunks(gate, "my secret is ", ["out, the sec", "ret stays"]));
        const chunks: string[] = [];
        for await (const c of stream) { chunks.push(c.delta); gate.read(c.delta); }
        expect(gate.order).toEqual(["consumer read", "source sent the rest"]);
        expect(chunks[0]).toBe("my ****** is ");
        expect(chunks.join("")).toBe("my ****** is out, the ****** stays");
        for (const c of chunks) expect(c).not.toMatch(/sec|cret/);
        const r = await stream.result;
        expect(r.ok && r.output.content).toBe("my ****** is out, the ****** stays");
        expect(r.annotations.seen_answer).toBe("my ****** is out, the ****** stays");
        expect(r.hooks.find((h) => h.bindingId === "rw-after")).toMatchObject({ point: "model.chat.after", outcome: "continue" });
      });

      it("its after hook's rewrite of a streamed answer is refused with ANSWER_ALREADY_STREAMED: fail-closed ends the call with HOOK_FAILED, fail-open records it and keeps the streamed answer", async () => {
        bind(redactor({ append: " [checked]" }));
        const closed = host.chatStream(ctx, chatRequest, streamOf(["a secret ", "answer"]));
        const emitted: string[] = [];
        const err = await failure((async () => { for await (const c of closed) emitted.push(c.delta); })());
        expect(err).toMatchObject({ code: "HOOK_FAILED", details: { bindingId: "rw-after", cause: { code: "ANSWER_ALREADY_STREAMED" } } });
        expect(emitted.join("")).toBe("a ****** answer");

        // Fail-open on the after hook only: a twin that failed open would let a chunk through unscanned, so it would hold the stream.
        const [chunkTwin, afterHook] = redactor({ append: " [checked]" });
        bind([chunkTwin!, { ...afterHook!, failurePolicy: "fail-open" }]);
        const open = host.chatStream(ctx, chatRequest, streamOf(["a secret ", "answer"]));
        expect(await collect(open)).toBe("a ****** answer");
        const r = await open.result;
        expect(r.ok && r.output.content).toBe("a ****** answer");
        expect(r.hooks.find((h) => h.bindingId === "rw-after")).toMatchObject({ outcome: "failed", error: { code: "ANSWER_ALREADY_STREAMED" } });
      });

      it("its after hook may still block: the call ends with HOOK_BLOCKED once the stream ends (the text already went out, as the chunk hook let it)", async () => {
        bind(redactor({ block: true }));
        const emitted: string[] = [];
        const stream = host.chatStream(ctx, chatRequest, streamOf(["a secret ", "answer"]));
        const err = await failure((async () => { for await (const c of stream) emitted.push(c.delta); })());
        expect(err).toMatchObject({ code: "HOOK_BLOCKED", details: { bindingId: "rw-after", hookCode: "answer.denied" } });
        expect(emitted.join("")).toBe("a ****** answer");
        expect((await stream.result).facts.realStatus).toBe("succeeded");
      });

      it("another after binding that may rewrite, with no chunk twin, holds the whole stream back as before", async () => {
        bind([...redactor(), { id: "tail", point: "model.chat.after", priority: 1_000, config: { mode: "append", tag: "[checked]" } }]);
        const gate = gatedSource();
        const stream = host.chatStream(ctx, chatRequest, gatedChunks(gate, "my secret is ", ["out"]));
        const chunks: string[] = [];
        for await (const c of stream) { chunks.push(c.delta); gate.read(c.delta); }
        expect(gate.order).toEqual(["source gave up waiting", "source sent the rest", "consumer read"]);
        expect(chunks).toEqual(["my ****** is out[checked]"]);
      });

      it("a twin that fails open is no twin: the stream holds back and the after hook may rewrite", async () => {
        bind(redactor({ append: " [checked]" }, { failurePolicy: "fail-open" }));
        const chunks: string[] = [];
        for await (const c of host.chatStream(ctx, chatRequest, streamOf(["a secret ", "answer"]))) chunks.push(c.delta);
        expect(chunks).toEqual(["a ****** answer [checked]"]);
      });

      it("a twin bound with another config is no twin: the stream holds back and the after hook may rewrite", async () => {
        bind([redactor()[0]!, { ...redactor({ append: " [checked]" })[1]! }]);
        const stream = host.chatStream(ctx, chatRequest, streamOf(["a secret ", "answer"]));
        const chunks: string[] = [];
        for await (const c of stream) chunks.push(c.delta);
        expect(chunks).toEqual(["a ****** answer [checked]"]);
      });

      it("a short-circuit's served answer streams through the twin too, and the after hook judges it read-only", async () => {
        bind([{ id: "cache", point: "model.chat.before", config: { mode: "short_circuit", result: { content: "cached secret" } } }, ...redactor()]);
        let called = false;
        const stream = host.chatStream(ctx, chatRequest, async function* () { called = true; yield { delta: "never" }; });
        expect(await collect(stream)).toBe("cached ******");
        const r = await stream.result;
        expect(called).toBe(false);
        expect(r.annotations.seen_answer).toBe("cached ******");
        expect(r.hooks.find((h) => h.bindingId === "rw-after")).toMatchObject({ outcome: "continue" });
      });

      it("a call that is not streamed is unchanged: the declaring after hook rewrites the answer", async () => {
        bind(redactor({ append: " [checked]" }));
        const r = await host.chat(ctx, chatRequest, async () => answer("a secret answer"));
        expect(r.ok && r.output.content).toBe("a ****** answer [checked]");
      });
    });

    describe("4. messages stay valid", () => {
      it("a patch that sets /content to null on an answer without tool_calls is refused with PATCH_INVALID naming the rule", async () => {
        bind([{ id: "nullify", point: "model.chat.after", failurePolicy: "fail-open", config: { mode: "patch", kind: "output", path: "/content", value: null } }]);
        const r = await host.chat(ctx, chatRequest, async () => answer("hello"));
        expect(r.ok && r.output.content).toBe("hello");
        expect(r.hooks[0]?.error?.code).toBe("PATCH_INVALID");
        expect(r.hooks[0]?.error?.message).toMatch(/answer-or-action/);
      });

      it("a model tool_call whose arguments are not a JSON object is reported as MODEL_OUTPUT_INVALID, never handed on", async () => {
        bind([{ id: "watch", point: "model.chat.after", config: { mode: "continue" } }]);
        const broken = answer(null, { finish_reason: "tool_calls", tool_calls: [{ id: "t1", type: "function", function: { name: "search", arguments: "{\"limit\": 5," } }] });
        const r = await host.chat(ctx, chatRequest, async () => broken);
        expect(!r.ok && r.error).toMatchObject({ code: "MODEL_OUTPUT_INVALID", details: { index: 0, id: "t1", name: "search" } });
        expect(r.facts).toMatchObject({ called: true, realStatus: "succeeded" });
        expect(r.hooks.some((h) => h.point === "model.chat.after")).toBe(false);
      });

      it("streamed tool_call deltas are assembled and validated before stream.result is ok", async () => {
        bind([{ id: "watch", point: "model.chat.chunk", config: { mode: "continue" } }]);
        const stream = host.chatStream(ctx, chatRequest, async function* () {
          yield { tool_calls: [{ index: 0, id: "call_a", function: { name: "search", arguments: "{\"limit\": 5, " } }] };
          yield { tool_calls: [{ index: 0, function: { arguments: "\"q\": " } }], finish_reason: "tool_calls" };
        });
        expect(await failure(collect(stream))).toMatchObject({ code: "MODEL_OUTPUT_INVALID" });
        const r = await stream.result;
        expect(!r.ok && r.error.code).toBe("MODEL_OUTPUT_INVALID");
      });
    });

    describe("5. facts are exact", () => {
      it("facts.attempts counts real attempts: a tool that never settles, cancelled during its first attempt, reports 1, and so does its record", async () => {
        bind([]);
        const controller = new AbortController();
        let started = 0;
        const r = await host.tool({ ...ctx, signal: controller.signal }, readFile("a"), () => { started++; setImmediate(() => controller.abort()); return new Promise(() => {}); }, { retries: 3 });
        expect(!r.ok && r.error.code).toBe("CALL_CANCELLED");
        expect(started).toBe(1);
        expect(r.facts).toMatchObject({ attempts: 1, realStatus: "unknown" });
        expect(await records.get(r.facts.operationId)).toMatchObject({ attempts: 1, realStatus: "unknown" });
      });

      it("a deadline that passes during a before hook is DEADLINE_EXCEEDED", async () => {
        bind([{ id: "slow", point: "tool.before", timeoutMs: 10_000, config: { mode: "loop" } }]);
        let called = false;
        const r = await host.tool({ ...ctx, deadline: Date.now() + 80 }, readFile("a"), async () => { called = true; });
        expect(!r.ok && r.error.code).toBe("DEADLINE_EXCEEDED");
        expect(called).toBe(false);
        expect(r.facts.realStatus).toBe("not_started");
      });

      it("a deadline that passes during a streamed call's before hook is DEADLINE_EXCEEDED", async () => {
        bind([{ id: "slow", point: "model.chat.before", timeoutMs: 10_000, config: { mode: "loop" } }]);
        const stream = host.chatStream({ ...ctx, deadline: Date.now() + 80 }, chatRequest, streamOf(["never"]));
        expect(await failure(collect(stream))).toMatchObject({ code: "DEADLINE_EXCEEDED" });
      });

      it("a streamed call whose source ignores its signal still settles when the caller aborts, with the real status unknown", async () => {
        bind([]);
        const controller = new AbortController();
        const stream = host.chatStream({ ...ctx, signal: controller.signal }, chatRequest, async function* () { yield { delta: "a" }; await new Promise(() => {}); });
        const err = await failure((async () => { for await (const c of stream) if (c.delta) controller.abort(); })());
        expect(err).toMatchObject({ code: "CALL_CANCELLED" });
        const r = await stream.result;
        expect(!r.ok && r.error.code).toBe("CALL_CANCELLED");
        expect(r.facts.realStatus).toBe("unknown");
      });

      it("an abandoned stream (break out of for await) cancels its source, runs the error and finally stages and settles as cancelled", async () => {
        bind([
          { id: "err", point: "operation.error", config: { mode: "continue" } },
          { id: "fin", point: "operation.finally", config: { mode: "observe", tag: "outcome", field: "outcome" } },
        ]);
        let sourceStopped = false;
        const stream = host.chatStream(ctx, chatRequest, async function* (_req, op) {
          try { yield { delta: "one" }; yield { delta: "two" }; await new Promise((resolve) => op.signal.addEventListener("abort", resolve)); } finally { sourceStopped = true; }
        });
        for await (const c of stream) { expect(c.delta).toBe("one"); break; }
        const r = await stream.result;
        expect(!r.ok && r.error.code).toBe("CALL_CANCELLED");
        expect(r.facts.realStatus).toBe("unknown");
        expect(r.hooks.map((h) => h.bindingId)).toEqual(["err", "fin"]);
        expect(r.annotations.seen_outcome).toBe("cancelled");
        await new Promise((resolve) => setImmediate(resolve));
        expect(sourceStopped).toBe(true);
      });

      it("the operation record names the binding in progress while an after hook runs", async () => {
        bind([
          { id: "quick", point: "tool.after", config: { mode: "continue" } },
          { id: "slow-after", point: "tool.after", timeoutMs: 10_000, config: { mode: "loop" } },
        ]);
        const controller = new AbortController();
        let checkpoint: unknown;
        onUpdate = (changes) => {
          if ((changes.inProgress as { bindingId?: string } | undefined)?.bindingId === "slow-after") { checkpoint = changes.inProgress; controller.abort(); }
        };
        try {
          const r = await host.tool({ ...ctx, signal: controller.signal }, readFile("a"), async () => "done");
          expect(checkpoint).toEqual({ point: "tool.after", bindingId: "slow-after" });
          expect(!r.ok && r.error.code).toBe("CALL_CANCELLED");
          expect(await records.get(r.facts.operationId)).toMatchObject({ phase: "after", realStatus: "succeeded", inProgress: { point: "tool.after", bindingId: "slow-after" } });
        } finally {
          onUpdate = undefined;
        }
      });
    });

    describe("6. what the tool boundary can say", () => {
      it("execute reports artifacts: tool.after sees them read-only and the record keeps them", async () => {
        bind([
          { id: "see", point: "tool.after", config: { mode: "observe", tag: "artifacts", field: "artifacts" } },
          { id: "erase", point: "tool.after", failurePolicy: "fail-open", config: { mode: "patch", kind: "output", path: "/artifacts", value: [] } },
        ]);
        const r = await host.tool(ctx, readFile("a"), async (_args, op) => { op.artifact({ kind: "file", path: "/ws/report.md" }); return "written"; });
        const artifacts = [{ kind: "file", path: "/ws/report.md" }];
        expect(r.ok && r.annotations.seen_artifacts).toEqual(artifacts);
        expect(r.hooks.find((h) => h.bindingId === "erase")?.error?.code).toBe("PATCH_FORBIDDEN");
        expect(r.facts.artifacts).toEqual(artifacts);
        expect((await records.get(r.facts.operationId))?.artifacts).toEqual(artifacts);
      });

      it("a tool that fails still gets tool.after with real status failed, may change the view but not the status, and then operation.error", async () => {
        bind([
          { id: "status", point: "tool.after", config: { mode: "observe", tag: "status", field: "status" } },
          { id: "flip", point: "tool.after", failurePolicy: "fail-open", config: { mode: "patch", kind: "output", path: "/status", value: "succeeded" } },
          { id: "view", point: "tool.after", config: { mode: "patch", kind: "output", path: "/view", value: "the search failed; try again later" } },
          { id: "err", point: "operation.error", config: { mode: "continue" } },
        ]);
        const r = await host.tool(ctx, readFile("a"), async () => { throw new Error("disk on fire at /secret/path"); });
        expect(!r.ok && r.error.code).toBe("OPERATION_FAILED");
        expect(r.facts.realStatus).toBe("failed");
        expect(r.annotations.seen_status).toBe("failed");
        expect(r.hooks.find((h) => h.bindingId === "flip")?.error?.code).toBe("PATCH_FORBIDDEN");
        expect(!r.ok && r.output).toEqual({ status: "failed", view: "the search failed; try again later", callId: "call-f" });
        expect(r.hooks.map((h) => h.point)).toEqual(["tool.after", "tool.after", "tool.after", "operation.error"]);
      });

      it("a binding can match a particular child instance by id or pattern", async () => {
        bind([{ id: "researchers", point: "tool.before", match: { instanceIds: ["researcher-*", "auditor"] }, config: { mode: "reject", code: "child.denied" } }]);
        const outcome = async (instanceId?: string) => (await host.tool({ ...ctx, ...(instanceId ? { instanceId } : {}) }, readFile("a"), async () => "ok")).ok;
        expect(await outcome("researcher-2")).toBe(false);
        expect(await outcome("auditor")).toBe(false);
        expect(await outcome("writer-1")).toBe(true);
        expect(await outcome()).toBe(true);
      });

      it("a child's operations run on its parent's release: a newer release cannot widen the child's chain", async () => {
        const parentRelease = bind([{ id: "child-guard", point: "tool.before", match: { instances: ["child"] }, config: { mode: "reject", code: "child.denied" } }]);
        let child: Awaited<ReturnType<Host["tool"]>> | undefined;
        const parent = await host.tool(ctx, readFile("a"), async (_args, op) => {
          bind([]);
          child = await host.tool({ ...ctx, instanceId: "child-1", parentOperationId: op.operationId }, readFile("b"), async () => "child ran");
          return "parent done";
        });
        expect(parent.ok).toBe(true);
        expect(child?.facts.revision).toBe(parentRelease.revision);
        expect(!child?.ok && child?.error.code).toBe("HOOK_REJECTED");
        const later = await host.tool({ ...ctx, instanceId: "child-1", parentOperationId: parent.facts.operationId }, readFile("b"), async () => "child ran");
        expect(later.ok).toBe(true);
      });
    });
  });
}
