// Real payloads pass through. What agent frameworks send (content parts,
// refusals, reasoning, provider options, usage details) reaches the model and comes back
// to the caller exactly as it was when no hook is bound; hooks see the declared view and
// can change only what a point declares.
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import type { RequestEnvelope } from "../../abi/envelope.js";
import { createHost } from "../../host/index.js";
import type { ChatRequest } from "../../host/boundary/chat.js";
import type { EmittedChunk } from "../../host/boundary/stream.js";
import { FRAMEWORK_CASES, LANGCHAIN, OPENAI_AGENTS, AI_SDK } from "../fixtures/payloads/frameworks.js";

const host = createHost({ workers: 1 });
afterAll(() => host.close());
const ctx = { spaceId: "s" };
const seen: RequestEnvelope[] = [];
let reply: (req: RequestEnvelope) => unknown = () => ({ kind: "continue" });
host.registerHook("spy", (req) => { seen.push(req); return reply(req) as never; });
const bind = (...points: string[]) => host.activate({ revision: 1, bindings: points.map((point, i) => ({ id: `spy-${i}`, hookRef: "spy", point, failurePolicy: "fail-closed" })) } as never);
beforeEach(() => { seen.length = 0; reply = () => ({ kind: "continue" }); host.activate({ revision: 1, bindings: [] } as never); });

/** Byte-for-byte: the same JSON text, so key order and every extra field survive. */
const sameBytes = (a: unknown, b: unknown) => expect(JSON.stringify(a)).toBe(JSON.stringify(b));

describe.each(FRAMEWORK_CASES)("a chat call from $name", (c) => {
  it("with no hook bound reaches the model and comes back byte-for-byte unchanged", async () => {
    let got: ChatRequest | undefined;
    const r = await host.chat(ctx, structuredClone(c.request), async (request) => { got = request; return structuredClone(c.answer); });
    expect(r.ok, JSON.stringify(!r.ok && r.error)).toBe(true);
    expect(got).toStrictEqual(c.request);
    sameBytes(got, c.request);
    expect(r.ok && r.output).toStrictEqual(c.answer);
    sameBytes(r.ok && r.output, c.answer);
  });

  it("with observing hooks at every chat point still comes back byte-for-byte unchanged", async () => {
    bind("model.chat.before", "model.chat.after");
    let got: ChatRequest | undefined;
    const r = await host.chat(ctx, structuredClone(c.request), async (request) => { got = request; return structuredClone(c.answer); });
    expect(r.ok, JSON.stringify(!r.ok && r.error)).toBe(true);
    sameBytes(got, c.request);
    sameBytes(r.ok && r.output, c.answer);
    expect(seen.map((s) => s.point)).toEqual(["model.chat.before", "model.chat.after"]);
  });

  it("streamed with no hook bound hands the model the same request and every text delta through", async () => {
    let got: ChatRequest | undefined;
    const stream = host.chatStream(ctx, structuredClone(c.request), async function* (request) { got = request; for (const k of c.chunks) yield structuredClone(k); });
    const out: EmittedChunk[] = [];
    for await (const e of stream) out.push(e);
    sameBytes(got, c.request);
    const r = await stream.result;
    expect(r.ok, JSON.stringify(!r.ok && r.error)).toBe(true);
    const sent = (field: string) => c.chunks.map((k) => (k.choices?.[0]?.delta as Record<string, unknown> | undefined)?.[field]).filter((t): t is string => typeof t === "string").join("");
    expect(out.map((e) => e.delta).join("")).toBe(sent("content"));
    expect(out.map((e) => e.reasoning_content ?? "").join("")).toBe(sent("reasoning_content"));
    expect(out.map((e) => e.refusal ?? "").join("")).toBe(sent("refusal"));
  });
});

describe("the hooks' view of a real request", () => {
  it("holds every declared field (content parts, refusal, reasoning_content, name, tool_call_id, declared params) and no undeclared one", async () => {
    bind("model.chat.before");
    await host.chat(ctx, structuredClone(OPENAI_AGENTS.request), async () => structuredClone(OPENAI_AGENTS.answer));
    const payload = seen[0]!.payload as Record<string, any>;
    expect(payload.messages[0].role).toBe("developer");
    expect(payload.messages[1].content).toEqual([{ type: "text", text: "Refund order 7 for carol@example.net" }, { type: "input_file_ref" }]);
    expect(payload.messages[2]).toEqual({ role: "assistant", content: [{ type: "refusal", refusal: "I cannot refund without an id." }], refusal: "I cannot refund without an id." });
    expect(payload.params).toEqual({ temperature: 0.7, top_p: 1, max_tokens: 512, tool_choice: "required", parallel_tool_calls: false, response_format: OPENAI_AGENTS.request.params!.response_format });
    expect(payload.tools[0]).toEqual({ name: "refund", description: "Refund an order", strict: true, parameters: OPENAI_AGENTS.request.tools![0]!.parameters });
    const lc = structuredClone(LANGCHAIN.request);
    seen.length = 0;
    await host.chat(ctx, lc, async () => structuredClone(LANGCHAIN.answer));
    const view = seen[0]!.payload as Record<string, any>;
    expect(view.messages[1]).toEqual({ role: "user", content: "Who wrote it? Reply to bob@example.org", name: "bob" });
    expect(view.messages[2].reasoning_content).toBe("The user asks about a book; look it up.");
    expect(view.messages[3].tool_call_id).toBe("call_lc_1");
    expect(Object.keys(view.params).sort()).toEqual(["frequency_penalty", "max_completion_tokens", "parallel_tool_calls", "presence_penalty", "response_format", "temperature", "tool_choice", "top_p"]);
  });

  it("shows the answer's refusal, reasoning and usage details in the host's names", async () => {
    bind("model.chat.after");
    await host.chat(ctx, structuredClone(LANGCHAIN.request), async () => structuredClone(LANGCHAIN.answer));
    expect(seen[0]!.payload).toEqual({
      model: "deepseek-reasoner", content: "Frank Herbert.", reasoning_content: "The tool says Frank Herbert; bob@example.org asked.", tool_calls: [], finish_reason: "stop",
      usage: { input_tokens: 40, output_tokens: 30, total_tokens: 70, cached_tokens: 0, reasoning_tokens: 22 }, provider_request_id: "lc-req-1",
    });
  });

  it("lets a hook change a text part and append a message, keeping provider options and undeclared part fields", async () => {
    bind("model.chat.before");
    reply = () => ({ kind: "patch_input", patch: [{ op: "replace", path: "/messages/1/content/0/text", value: "Refund order 7 for [email]" }, { op: "add", path: "/messages/-", value: { role: "system", content: "Be brief." } }, { op: "replace", path: "/params/temperature", value: 0 }] });
    let got: ChatRequest | undefined;
    const r = await host.chat(ctx, structuredClone(OPENAI_AGENTS.request), async (request) => { got = request; return structuredClone(OPENAI_AGENTS.answer); });
    expect(r.ok).toBe(true);
    const expected = structuredClone(OPENAI_AGENTS.request) as any;
    expected.messages[1].content[0].text = "Refund order 7 for [email]";
    expected.messages.push({ role: "system", content: "Be brief." });
    expected.params.temperature = 0;
    sameBytes(got, expected);
  });

  it("refuses a patch to a provider option (an undeclared field) with PATCH_FORBIDDEN naming the path", async () => {
    bind("model.chat.before");
    reply = () => ({ kind: "patch_input", patch: [{ op: "replace", path: "/params/store", value: false }] });
    let called = false;
    const r = await host.chat(ctx, structuredClone(OPENAI_AGENTS.request), async () => { called = true; return structuredClone(OPENAI_AGENTS.answer); });
    expect(called).toBe(false);
    expect(!r.ok && r.error.code).toBe("HOOK_FAILED");
    expect(r.hooks[0]!.error).toMatchObject({ code: "PATCH_FORBIDDEN", details: { path: "/params/store", undeclared: true } });
    expect(r.hooks[0]!.error!.message).toContain("/params/store");
  });

  it("lets an after hook change the refusal and reasoning text and nothing else of the answer", async () => {
    bind("model.chat.after");
    reply = () => ({ kind: "patch_output", patch: [{ op: "replace", path: "/reasoning_content", value: "[redacted]" }] });
    const r = await host.chat(ctx, structuredClone(LANGCHAIN.request), async () => structuredClone(LANGCHAIN.answer));
    sameBytes(r.ok && r.output, { ...LANGCHAIN.answer, reasoning_content: "[redacted]" });
    reply = () => ({ kind: "patch_output", patch: [{ op: "replace", path: "/usage/input_tokens", value: 1 }] });
    const refused = await host.chat(ctx, structuredClone(LANGCHAIN.request), async () => structuredClone(LANGCHAIN.answer));
    expect(refused.hooks.at(-1)!.error?.code).toBe("PATCH_FORBIDDEN");
  });

  it("refuses a declared field of the wrong type with PAYLOAD_INVALID naming it, and never calls the model", async () => {
    const bad = structuredClone(AI_SDK.request) as any;
    bad.params.seed = "forty-two";
    let called = false;
    const r = await host.chat(ctx, bad, async () => { called = true; return structuredClone(AI_SDK.answer); });
    expect(called).toBe(false);
    expect(!r.ok && r.error.code).toBe("PAYLOAD_INVALID");
    expect(!r.ok && r.error.details).toMatchObject({ field: "/params/seed" });
  });
});
