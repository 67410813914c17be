/** sluice/ai-sdk: the middleware and the tool wrapper against the AI SDK's own mock language model. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APICallError, generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import type { LanguageModelV4GenerateResult, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { guardTools, sluiceMiddleware } from "sluice/ai-sdk";
import { adapterHost, EMAIL, leaks, type AdapterHost } from "./setup.js";
import { applyParams, paramsOf } from "../../host/adapters/ai-sdk/params.js";

let h: AdapterHost;
beforeAll(async () => { h = await adapterHost(); });
afterAll(() => h.close());

const usage = { inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 5, text: 5, reasoning: undefined } };
const stop = { unified: "stop", raw: "stop" } as const;
const answer = (text: string): LanguageModelV4GenerateResult => ({ content: [{ type: "text", text }], finishReason: stop, usage, warnings: [] });

function guarded(inner: MockLanguageModelV4) {
  return wrapLanguageModel({ model: inner, middleware: sluiceMiddleware({ host: h.host, context: { spaceId: "space-a" } }) });
}

/** The e-mail split across three text deltas and two reasoning deltas, then a streamed tool call. */
const STREAMED: LanguageModelV4StreamPart[] = [
  { type: "stream-start", warnings: [] },
  { type: "response-metadata", id: "resp-1", modelId: "mock-model-id" },
  { type: "reasoning-start", id: "r" },
  { type: "reasoning-delta", id: "r", delta: "the user is alice.sm" },
  { type: "reasoning-delta", id: "r", delta: "ith@example.com, " },
  { type: "reasoning-end", id: "r" },
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: "Write to alice." },
  { type: "text-delta", id: "t", delta: "smith@exam" },
  { type: "text-delta", id: "t", delta: "ple.com today." },
  { type: "text-end", id: "t" },
  { type: "tool-input-start", id: "call-1", toolName: "orders.search" },
  { type: "tool-input-delta", id: "call-1", delta: "{\"query\":\"shoes\"," },
  { type: "tool-input-delta", id: "call-1", delta: "\"limit\":5}" },
  { type: "tool-input-end", id: "call-1" },
  { type: "tool-call", toolCallId: "call-1", toolName: "orders.search", input: "{\"query\":\"shoes\",\"limit\":5}" },
  { type: "raw", rawValue: { text: EMAIL } },
  { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage },
];

const searchSchema = jsonSchema<{ query: string; limit: number }>({ type: "object", properties: { query: { type: "string" }, limit: { type: "integer" } }, required: ["query", "limit"] });

describe("sluice/ai-sdk", () => {
  it("clamps a tool argument: the tool's execute gets the clamped input", async () => {
    h.bind([{ hookRef: "order-search-limit@1.0.0", point: "tool.before", config: { max_limit: 100 }, match: { toolIds: ["orders.search"] } }]);
    const got: unknown[] = [];
    const tools = guardTools({ "orders.search": tool({ inputSchema: searchSchema, execute: async (input) => { got.push(input); return `${input.limit} orders`; } }) }, { host: h.host, context: { spaceId: "space-a" } });
    const inner = new MockLanguageModelV4({
      doGenerate: [
        { content: [{ type: "tool-call", toolCallId: "call-1", toolName: "orders.search", input: "{\"query\":\"shoes\",\"limit\":500}" }], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] },
        answer("done"),
      ],
    });
    const r = await generateText({ model: guarded(inner), tools, prompt: "find shoes", stopWhen: stepCountIs(2) });
    expect(got).toEqual([{ query: "shoes", limit: 100 }]);
    expect(r.steps[0]!.toolResults).toMatchObject([{ toolCallId: "call-1", output: "100 orders" }]);
    expect(r.text).toBe("done");
    // The tool result went back to the model through the host as a tool message.
    expect(inner.doGenerateCalls[1]!.prompt.at(-1)).toMatchObject({ role: "tool", content: [{ type: "tool-result", toolCallId: "call-1" }] });
  });

  it("streams text and reasoning redacted by a chunk hook: no stream part the consumer received carries the e-mail", async () => {
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    const inner = new MockLanguageModelV4({ doStream: { stream: convertArrayToReadableStream(STREAMED) } });
    const r = streamText({ model: guarded(inner), prompt: `mail ${EMAIL}`, includeRawChunks: true });
    const parts: unknown[] = [];
    for await (const p of r.fullStream) parts.push(p);
    const seen = parts.map((p) => JSON.stringify(p));
    expect(seen.filter(leaks)).toEqual([]);
    expect(await r.text).toBe("Write to [email] today.");
    expect(await r.reasoningText).toBe("the user is [email], ");
    expect(await r.toolCalls).toMatchObject([{ toolCallId: "call-1", toolName: "orders.search", input: { query: "shoes", limit: 5 } }]);
    expect(parts.filter((p) => (p as { type: string }).type === "tool-input-delta").map((p) => (p as { delta: string }).delta).join("")).toBe("{\"query\":\"shoes\",\"limit\":5}");
    expect(await r.finishReason).toBe("tool-calls");
  });

  it("redacts a tool's result in tool.after: neither the caller's steps nor the model's next prompt carry the e-mail", async () => {
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "tool.after" }]);
    const tools = guardTools({ "customer.lookup": tool({ inputSchema: jsonSchema<{ id: string }>({ type: "object", properties: { id: { type: "string" } }, required: ["id"] }), execute: async ({ id }) => `customer ${id}: ${EMAIL}` }) }, { host: h.host, context: { spaceId: "space-a" } });
    const inner = new MockLanguageModelV4({
      doGenerate: [
        { content: [{ type: "tool-call", toolCallId: "call-1", toolName: "customer.lookup", input: "{\"id\":\"c7\"}" }], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] },
        answer("done"),
      ],
    });
    const r = await generateText({ model: guarded(inner), tools, prompt: "who is c7?", stopWhen: stepCountIs(2) });
    expect(r.steps[0]!.toolResults).toMatchObject([{ output: "customer c7: [email]" }]);
    expect(leaks(JSON.stringify(r.steps))).toBe(false);
    expect(leaks(JSON.stringify(inner.doGenerateCalls[1]!.prompt))).toBe(false);
  });

  it("a failing tool's error reaches the model as tool.after left it, redacted", async () => {
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "tool.after" }]);
    const tools = guardTools({ "customer.lookup": tool({ inputSchema: jsonSchema<{ id: string }>({ type: "object", properties: { id: { type: "string" } }, required: ["id"] }), execute: async (): Promise<string> => { throw new Error(`no customer ${EMAIL}`); } }) }, { host: h.host, context: { spaceId: "space-a" } });
    const inner = new MockLanguageModelV4({
      doGenerate: [
        { content: [{ type: "tool-call", toolCallId: "call-1", toolName: "customer.lookup", input: "{\"id\":\"c7\"}" }], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] },
        answer("sorry"),
      ],
    });
    await generateText({ model: guarded(inner), tools, prompt: "who is c7?", stopWhen: stepCountIs(2) });
    const result = inner.doGenerateCalls[1]!.prompt.at(-1);
    expect(result).toMatchObject({ role: "tool", content: [{ type: "tool-result", output: { type: "error-text", value: expect.stringContaining("no customer [email]") } }] });
    expect(leaks(JSON.stringify(inner.doGenerateCalls[1]!.prompt))).toBe(false);
  });

  it("a chunk hook's block ends the stream with the hook's error, and no text of the blocked chunk is streamed", async () => {
    h.bind([{ id: "stop-ship", point: "model.chat.chunk", config: { mode: "block-on", needle: "smith" } }]);
    const inner = new MockLanguageModelV4({ doStream: { stream: convertArrayToReadableStream(STREAMED) } });
    const errors: unknown[] = [];
    const r = streamText({ model: guarded(inner), prompt: "hi", onError: ({ error }) => { errors.push(error); } });
    const text: string[] = [];
    for await (const p of r.fullStream) if (p.type === "text-delta") text.push(p.text);
    expect(text.join("")).toBe("Write to alice.");
    expect(errors).toMatchObject([{ code: "HOOK_BLOCKED", details: { bindingId: "stop-ship" } }]);
  });

  it("an abort stops the host's stream and the model's: the model's signal is aborted and nothing more is read", async () => {
    h.bind([]);
    let pulls = 0;
    // A model stream that sends one delta, then waits forever.
    const endless = new ReadableStream<LanguageModelV4StreamPart>({
      start(c) { c.enqueue({ type: "stream-start", warnings: [] }); c.enqueue({ type: "text-delta", id: "t", delta: "first" }); },
      pull: () => { pulls++; return new Promise(() => undefined); },
    });
    const inner = new MockLanguageModelV4({ doStream: { stream: endless } });
    const abort = new AbortController();
    const errors: unknown[] = [];
    const r = streamText({ model: guarded(inner), prompt: "hi", abortSignal: abort.signal, onError: ({ error }) => { errors.push(error); } });
    const text: string[] = [];
    for await (const t of r.textStream) { text.push(t); abort.abort(); }
    expect(text).toEqual(["first"]);
    expect(inner.doStreamCalls[0]!.abortSignal?.aborted).toBe(true);
    expect(pulls).toBeLessThanOrEqual(1);
  });

  it("a failing model's own error reaches the AI SDK, so its retries work as without Sluice", async () => {
    h.bind([]);
    let calls = 0;
    const inner = new MockLanguageModelV4({
      doGenerate: async () => {
        if (calls++ === 0) throw new APICallError({ message: "rate limited", url: "https://provider.test", requestBodyValues: {}, statusCode: 429, isRetryable: true });
        return answer("after a retry");
      },
    });
    const r = await generateText({ model: guarded(inner), prompt: "hi", maxRetries: 1 });
    expect(r.text).toBe("after a retry");
    expect(calls).toBe(2);
    const failing = new MockLanguageModelV4({ doGenerate: async () => { throw new APICallError({ message: "bad request", url: "https://provider.test", requestBodyValues: {}, statusCode: 400, isRetryable: false }); } });
    await expect(generateText({ model: guarded(failing), prompt: "hi", maxRetries: 2 })).rejects.toSatisfy((e) => APICallError.isInstance(e) && e.statusCode === 400);
  });

  it("a rejected prompt throws the hook's reason and never calls the model, generated or streamed", async () => {
    h.bind([{ hookRef: "prompt-guard@1.0.0", point: "model.chat.before", config: { deny: ["salary"] } }]);
    const inner = new MockLanguageModelV4({ doGenerate: answer("no"), doStream: { stream: convertArrayToReadableStream(STREAMED) } });
    await expect(generateText({ model: guarded(inner), prompt: "the CEO's salary?", maxRetries: 0 })).rejects.toMatchObject({ code: "HOOK_REJECTED", message: expect.stringMatching(/deny pattern 0/) });
    const errors: unknown[] = [];
    const s = streamText({ model: guarded(inner), prompt: "the CEO's salary?", maxRetries: 0, onError: ({ error }) => { errors.push(error); } });
    await s.consumeStream();
    expect(errors).toMatchObject([{ code: "HOOK_REJECTED" }]);
    expect(inner.doGenerateCalls).toHaveLength(0);
    expect(inner.doStreamCalls).toHaveLength(0);
  });

  it("a short-circuit serves the hook's answer without calling the model, generated or streamed", async () => {
    h.bind([{ id: "cache", point: "model.chat.before", config: { mode: "short_circuit", result: { content: "from the cache", finish_reason: "stop" } } }]);
    const inner = new MockLanguageModelV4({ doGenerate: answer("fresh"), doStream: { stream: convertArrayToReadableStream(STREAMED) } });
    const g = await generateText({ model: guarded(inner), prompt: "hi" });
    expect(g.text).toBe("from the cache");
    const s = streamText({ model: guarded(inner), prompt: "hi" });
    expect(await s.text).toBe("from the cache");
    expect(inner.doGenerateCalls).toHaveLength(0);
    expect(inner.doStreamCalls).toHaveLength(0);
  });

  it("shows hooks every declared param the call sets, and hands the model each one a hook changed", async () => {
    const seen: unknown[] = [];
    h.host.registerHook("params-seen", (req) => { seen.push((req.payload as { params?: unknown }).params); return { kind: "continue" }; });
    const patch = (path: string, value: unknown) => ({ point: "model.chat.before" as const, config: { mode: "patch", path, value } });
    h.bind([
      { hookRef: "params-seen", point: "model.chat.before", config: {} },
      patch("/params/seed", 7), patch("/params/frequency_penalty", 0.5), patch("/params/presence_penalty", -0.5),
      patch("/params/tool_choice", { type: "function", function: { name: "orders.search" } }), patch("/params/stop", "END"),
    ]);
    const inner = new MockLanguageModelV4({ doGenerate: answer("ok") });
    await generateText({
      model: guarded(inner), prompt: "hello", seed: 11, frequencyPenalty: 0.1, presencePenalty: 0.2, stopSequences: ["STOP"], toolChoice: "auto",
      tools: { "orders.search": tool({ description: "search", inputSchema: jsonSchema({ type: "object", properties: {} }) }) },
    });
    expect(seen[0]).toEqual({ seed: 11, frequency_penalty: 0.1, presence_penalty: 0.2, stop: ["STOP"], tool_choice: "auto" });
    expect(inner.doGenerateCalls[0]).toMatchObject({ seed: 7, frequencyPenalty: 0.5, presencePenalty: -0.5, stopSequences: ["END"], toolChoice: { type: "tool", toolName: "orders.search" } });
  });

  it("fails the call, naming the param, when a hook sets a value the AI SDK cannot carry", async () => {
    h.bind([{ point: "model.chat.before", config: { mode: "patch", path: "/params/tool_choice", value: { type: "bogus" } } }]);
    const inner = new MockLanguageModelV4({ doGenerate: answer("ok") });
    await expect(generateText({
      model: guarded(inner), prompt: "hello", toolChoice: "auto", maxRetries: 0,
      tools: { "orders.search": tool({ description: "search", inputSchema: jsonSchema({ type: "object", properties: {} }) }) },
    })).rejects.toMatchObject({ code: "PATCH_FORBIDDEN", details: { path: "/params/tool_choice" } });
    expect(inner.doGenerateCalls).toHaveLength(0);
    const out = { prompt: [] } as unknown as Parameters<typeof applyParams>[0];
    expect(() => applyParams(out, {}, { logit_bias: { "42": 1 } })).toThrow(expect.objectContaining({ code: "PATCH_FORBIDDEN", details: { path: "/params/logit_bias" } }));
    applyParams(out, {}, { response_format: { type: "json_schema", json_schema: { name: "r", schema: { type: "object" } } } });
    expect(out.responseFormat).toEqual({ type: "json", name: "r", schema: { type: "object" } });
    expect(paramsOf({ prompt: [], responseFormat: { type: "json" } })).toEqual({ response_format: { type: "json_object" } });
  });

  it("hands the model what a before hook changed, and everything no hook may touch as the caller sent it", async () => {
    h.bind([{ point: "model.chat.before", config: { mode: "patch", path: "/messages/1/content", value: "hello there" } }]);
    const inner = new MockLanguageModelV4({ doGenerate: answer("hi") });
    await generateText({
      model: guarded(inner), system: "be brief", prompt: "hello", temperature: 0.3, topK: 7, seed: 11,
      providerOptions: { mock: { cache: "on" } },
    });
    const call = inner.doGenerateCalls[0]!;
    expect(call.prompt).toEqual([{ role: "system", content: "be brief" }, { role: "user", content: [{ type: "text", text: "hello there" }] }]);
    expect(call).toMatchObject({ temperature: 0.3, topK: 7, seed: 11, providerOptions: { mock: { cache: "on" } } });
  });

  it("leaves a prompt no hook changed exactly as the caller built it", async () => {
    h.bind([]);
    const inner = new MockLanguageModelV4({ doGenerate: answer("ok") });
    const messages = [
      { role: "user" as const, content: [{ type: "text" as const, text: "look", providerOptions: { mock: { tag: 1 } } }, { type: "image" as const, image: new Uint8Array([137, 80, 78, 71]), mediaType: "image/png" }] },
      { role: "assistant" as const, content: [{ type: "tool-call" as const, toolCallId: "c1", toolName: "orders.search", input: { query: "x", limit: 1 } }] },
      { role: "tool" as const, content: [{ type: "tool-result" as const, toolCallId: "c1", toolName: "orders.search", output: { type: "json" as const, value: { n: 1 } } }] },
    ];
    const direct = new MockLanguageModelV4({ doGenerate: answer("ok") });
    await generateText({ model: direct, messages });
    await generateText({ model: guarded(inner), messages });
    expect(inner.doGenerateCalls[0]!.prompt).toEqual(direct.doGenerateCalls[0]!.prompt);
  });
});
