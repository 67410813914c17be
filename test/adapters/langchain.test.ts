/** sluice/langchain: the chat-model wrapper and the createAgent middleware against LangChain's own fake chat models. */
import { inspect } from "node:util";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createAgent, tool } from "langchain";
import { ConfigurableModel } from "langchain/chat_models/universal";
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { FakeStreamingChatModel } from "@langchain/core/utils/testing";
import { ChatGenerationChunk } from "@langchain/core/outputs";
import { fakeModel } from "@langchain/core/testing";
import { optionsAfter } from "../../host/adapters/langchain/params.js";
import { InMemoryCache } from "@langchain/core/caches";
import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { awaitAllCallbacks } from "@langchain/core/callbacks/promises";
import type { BaseMessage as CoreMessage } from "@langchain/core/messages";
import { registerConfigureHook } from "@langchain/core/context";
import { RunnableLambda } from "@langchain/core/runnables";
import { LangChainTracer } from "@langchain/core/tracers/tracer_langchain";
import { z } from "zod";
import { SluiceChatModel, sluiceMiddleware } from "sluice/langchain";
import { adapterHost, EMAIL, leaks, type AdapterHost } from "./setup.js";

let h: AdapterHost;
beforeAll(async () => { h = await adapterHost(); });
afterAll(() => h.close());

const context = { spaceId: "space-a" };
/** The e-mail split across three streamed chunks. */
const streaming = () => new FakeStreamingChatModel({ chunks: [new AIMessageChunk("Write to alice."), new AIMessageChunk("smith@exam"), new AIMessageChunk("ple.com today.")] });

function searchTool(got: unknown[]) {
  return tool(async (args: { query: string; limit: number }) => { got.push(args); return `${args.limit} orders for ${args.query}`; }, {
    name: "orders_search", description: "Search orders", schema: z.object({ query: z.string(), limit: z.number().int() }),
  });
}

describe("sluice/langchain", () => {
  it("clamps a tool argument in a createAgent run: the tool gets the clamped value", async () => {
    h.bind([{ hookRef: "order-search-limit@1.0.0", point: "tool.before", config: { max_limit: 100 }, match: { toolIds: ["orders_search"] } }]);
    const got: unknown[] = [];
    const model = fakeModel().respondWithTools([{ name: "orders_search", args: { query: "shoes", limit: 500 }, id: "call-1" }]).respond(new AIMessage("done"));
    const agent = createAgent({ model, tools: [searchTool(got)], middleware: [sluiceMiddleware({ host: h.host, context })] });
    const r = await agent.invoke({ messages: [new HumanMessage("find shoes")] });
    expect(got).toEqual([{ query: "shoes", limit: 100 }]);
    expect(r.messages.map((m: BaseMessage) => m.getType())).toEqual(["human", "ai", "tool", "ai"]);
    expect(r.messages[1]).toMatchObject({ tool_calls: [{ id: "call-1", name: "orders_search", args: { query: "shoes", limit: 500 } }] });
    expect(r.messages.slice(2).map((m: BaseMessage) => m.content)).toEqual(["100 orders for shoes", "done"]);
  });

  it("streams only redacted tokens: no chunk, callback token or streamMode \"messages\" event carries the e-mail", async () => {
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    // The wrapper alone: its stream and the callbacks of the call.
    const model = new SluiceChatModel({ model: streaming(), host: h.host, context });
    const tokens: string[] = [];
    const chunks: string[] = [];
    for await (const c of await model.stream(`mail ${EMAIL}`, { callbacks: [{ handleLLMNewToken: (t: string) => { tokens.push(t); } }] })) chunks.push(JSON.stringify(c));
    expect(tokens.join("")).toBe("Write to [email] today.");
    expect([...tokens, ...chunks].filter(leaks)).toEqual([]);

    // A createAgent run streamed with streamMode "messages", with a callback on the run: the middleware alone guards it.
    const agent = createAgent({ model: streaming(), tools: [], middleware: [sluiceMiddleware({ host: h.host, context })] });
    const runTokens: string[] = [];
    const events: string[] = [];
    const stream = await agent.stream({ messages: [new HumanMessage("mail me")] }, { streamMode: "messages", callbacks: [{ handleLLMNewToken: (t: string) => { runTokens.push(t); } }] });
    for await (const [message] of stream) events.push(JSON.stringify(message));
    expect(events.length).toBeGreaterThan(0);
    expect(runTokens.join("")).toBe("Write to [email] today.");
    expect([...runTokens, ...events].filter(leaks)).toEqual([]);
  });

  it("streams a model's tool calls through, streamed in pieces or whole, with the text redacted around them", async () => {
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    // LangChain's fake keeps a chunk's content and tool_calls only; this one streams its chunks as they are.
    class ChunkStreamingModel extends FakeStreamingChatModel {
      override async *_streamResponseChunks(): AsyncGenerator<ChatGenerationChunk> {
        for (const message of this.chunks) yield new ChatGenerationChunk({ message, text: message.text });
      }
    }
    const inner = new ChunkStreamingModel({ chunks: [
      new AIMessageChunk(`Looking ${EMAIL} up.`),
      new AIMessageChunk({ content: "", tool_call_chunks: [{ type: "tool_call_chunk", index: 0, id: "call-1", name: "orders_search", args: "{\"query\":\"shoes\"," }] }),
      new AIMessageChunk({ content: "", tool_call_chunks: [{ type: "tool_call_chunk", index: 0, args: "\"limit\":5}" }] }),
      new AIMessageChunk({ content: "", tool_calls: [{ id: "call-2", name: "customer_lookup", args: { id: "c7" } }] }),
    ] });
    let whole: AIMessageChunk | undefined;
    const seen: string[] = [];
    for await (const c of await new SluiceChatModel({ model: inner, host: h.host, context }).stream("look it up")) { seen.push(JSON.stringify(c)); whole = whole ? whole.concat(c) : c; }
    expect(seen.filter(leaks)).toEqual([]);
    expect(whole!.text).toBe("Looking [email] up.");
    expect(whole!.tool_calls).toMatchObject([{ id: "call-1", name: "orders_search", args: { query: "shoes", limit: 5 } }, { id: "call-2", name: "customer_lookup", args: { id: "c7" } }]);
  });

  it("hands the model every message as the caller built it when no hook changes them", async () => {
    h.bind([]);
    const history = [
      new HumanMessage({ content: [{ type: "text", text: "find shoes" }], id: "h1", additional_kwargs: { tag: 1 } }),
      new AIMessage({ content: "", tool_calls: [{ id: "call-1", name: "orders_search", args: { query: "shoes", limit: 5 } }], id: "a1" }),
      new ToolMessage({ content: "5 orders", tool_call_id: "call-1", name: "orders_search" }),
    ];
    const model = fakeModel().respond(new AIMessage("done"));
    const r = await new SluiceChatModel({ model, host: h.host, context }).invoke(history);
    expect(r.content).toBe("done");
    expect(model.calls[0]!.messages).toEqual(history);
  });

  it("hands the model what a before hook changed, the rest of the message as it was", async () => {
    h.bind([{ point: "model.chat.before", config: { mode: "patch", path: "/messages/0/content", value: "find boots" } }]);
    const model = fakeModel().respond(new AIMessage("done"));
    await new SluiceChatModel({ model, host: h.host, context }).invoke([new HumanMessage({ content: "find shoes", id: "h1" })]);
    expect(model.calls[0]!.messages).toMatchObject([{ content: "find boots", id: "h1" }]);
    expect(model.calls[0]!.messages[0]!.getType()).toBe("human");
  });

  it("a failing model's own error reaches LangChain, so withFallbacks works as without Sluice", async () => {
    h.bind([]);
    class ProviderDown extends Error {}
    const failing = new SluiceChatModel({ model: fakeModel().alwaysThrow(new ProviderDown("provider down")), host: h.host, context });
    await expect(failing.invoke("hi")).rejects.toBeInstanceOf(ProviderDown);
    const backup = new SluiceChatModel({ model: fakeModel().respond(new AIMessage("from the backup")), host: h.host, context });
    expect((await failing.withFallbacks([backup]).invoke("hi")).content).toBe("from the backup");
  });

  it("a rejected prompt throws the hook's reason and never calls the model", async () => {
    h.bind([{ hookRef: "prompt-guard@1.0.0", point: "model.chat.before", config: { deny: ["salary"] } }]);
    const model = fakeModel().respond(new AIMessage("no"));
    const agent = createAgent({ model, tools: [], middleware: [sluiceMiddleware({ host: h.host, context })] });
    await expect(agent.invoke({ messages: [new HumanMessage("the CEO's salary?")] })).rejects.toMatchObject({ cause: { code: "HOOK_REJECTED", message: expect.stringMatching(/deny pattern 0/) } });
    await expect(new SluiceChatModel({ model, host: h.host, context }).invoke("the CEO's salary?")).rejects.toMatchObject({ code: "HOOK_REJECTED" });
    expect(model.callCount).toBe(0);
  });

  it("a rejected tool call never runs the tool; the model is shown an error ToolMessage naming the binding", async () => {
    h.bind([{ id: "no-search", point: "tool.before", config: { mode: "reject", code: "policy.denied", reason: "searching is off" } }]);
    const got: unknown[] = [];
    const model = fakeModel().respondWithTools([{ name: "orders_search", args: { query: "shoes", limit: 5 }, id: "call-1" }]).respond(new AIMessage("sorry"));
    const agent = createAgent({ model, tools: [searchTool(got)], middleware: [sluiceMiddleware({ host: h.host, context })] });
    const r = await agent.invoke({ messages: [new HumanMessage("find shoes")] });
    expect(got).toEqual([]);
    expect(r.messages[2]).toMatchObject({ content: "rejected by binding no-search: policy.denied searching is off", status: "error", tool_call_id: "call-1" });
  });

  it("redacts a tool's result in tool.after: the ToolMessage and the model's next call carry no e-mail", async () => {
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "tool.after" }]);
    const lookup = tool(async ({ id }: { id: string }) => `customer ${id}: ${EMAIL}`, { name: "customer_lookup", description: "A customer's contact", schema: z.object({ id: z.string() }) });
    const model = fakeModel().respondWithTools([{ name: "customer_lookup", args: { id: "c7" }, id: "call-1" }]).respond(new AIMessage("done"));
    const agent = createAgent({ model, tools: [lookup], middleware: [sluiceMiddleware({ host: h.host, context })] });
    const r = await agent.invoke({ messages: [new HumanMessage("who is c7?")] });
    expect(r.messages[2]).toMatchObject({ content: "customer c7: [email]", tool_call_id: "call-1" });
    expect(leaks(JSON.stringify(r.messages))).toBe(false);
    expect(leaks(JSON.stringify(model.calls[1]!.messages))).toBe(false);
  });

  it("a short-circuit serves the hook's answer without calling the model, invoked or streamed", async () => {
    h.bind([{ id: "cache", point: "model.chat.before", config: { mode: "short_circuit", result: { content: "from the cache", finish_reason: "stop" } } }]);
    const model = fakeModel().respond(new AIMessage("fresh"));
    const agent = createAgent({ model, tools: [], middleware: [sluiceMiddleware({ host: h.host, context })] });
    const r = await agent.invoke({ messages: [new HumanMessage("hi")] });
    expect(r.messages.at(-1)?.content).toBe("from the cache");
    const chunks: string[] = [];
    for await (const c of await new SluiceChatModel({ model: streaming(), host: h.host, context }).stream("hi")) chunks.push(c.text);
    expect(chunks.join("")).toBe("from the cache");
    expect(model.callCount).toBe(0);
  });
});

/** Everything a value holds, as text (circular and class-laden values included). */
function text(v: unknown): string {
  return inspect(v, { depth: 12, breakLength: Infinity, maxArrayLength: Infinity, maxStringLength: Infinity });
}

/** `leaks`, on LangChain's own records: their "langsmith" tags and URLs hold "smith" but no piece of the e-mail. */
const leaksIn = (record: string): boolean => leaks(record.replace(/langsmith/gi, ""));

/** A callback handler that records every call it gets, as text. */
function recorder() {
  const calls: string[] = [];
  const on = (name: string) => (...args: unknown[]) => { calls.push(`${name} ${text(args)}`); };
  return { calls, handler: { handleLLMStart: on("llmStart"), handleChatModelStart: on("chatModelStart"), handleLLMNewToken: on("token"), handleLLMEnd: on("end"), handleLLMError: on("error") } };
}

/** A handler LangChain creates by itself for every callback manager, as an integration's configure hook does. */
const configured: string[] = [];
class ConfiguredHandler extends BaseCallbackHandler {
  name = "sluice_test_configured";
  override handleChatModelStart(...args: unknown[]) { configured.push(`chatModelStart ${text(args)}`); }
  override handleLLMNewToken(token: string) { configured.push(`token ${token}`); }
  override handleLLMEnd(...args: unknown[]) { configured.push(`end ${text(args)}`); }
}
registerConfigureHook({ handlerClass: ConfiguredHandler as never, envVar: "SLUICE_TEST_CONFIGURE_HOOK" });

/** A provider's model as @langchain/openai writes one: `bindTools` binds to the same model (its callbacks and all), options seen per call. */
class ProviderModel extends FakeStreamingChatModel {
  readonly seen: Record<string, unknown>[] = [];
  override bindTools(tools: unknown[], kwargs?: Record<string, unknown>) {
    return this.withConfig({ tools, ...kwargs } as never) as never;
  }
  override async *_streamResponseChunks(messages: CoreMessage[], options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    this.seen.push(options as Record<string, unknown>);
    yield* super._streamResponseChunks(messages, options, runManager);
  }
}
const REDACTED = "Write to [email] today.";
const chunks = () => [new AIMessageChunk("Write to alice."), new AIMessageChunk("smith@exam"), new AIMessageChunk("ple.com today.")];

describe("sluice/langchain: the wrapped model runs with no callback manager", () => {
  const ENV = ["LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2", "LANGCHAIN_VERBOSE", "SLUICE_TEST_CONFIGURE_HOOK"] as const;
  const saved = new Map<string, string | undefined>();
  let traced: { name: string; text: string }[];
  let tracerTokens: string[];
  let printed: string[];
  let inner: ReturnType<typeof recorder>;

  beforeEach(() => {
    // Tracing, verbose output and a configure hook are all on, as LangSmith users and integrations set them.
    for (const k of ENV) { saved.set(k, process.env[k]); process.env[k] = "true"; }
    traced = []; tracerTokens = []; printed = []; configured.length = 0;
    inner = recorder();
    // The tracer's runs are recorded here instead of being posted to LangSmith (what it would post, not its client).
    const record = async function (this: LangChainTracer, run: Record<string, unknown> & { name: string }) {
      const { name, inputs, outputs, events, extra, serialized, error } = run;
      traced.push({ name, text: text({ name, inputs, outputs, events, extra, serialized, error }) });
    };
    vi.spyOn(LangChainTracer.prototype, "onRunCreate").mockImplementation(record as never);
    vi.spyOn(LangChainTracer.prototype, "onRunUpdate").mockImplementation(record as never);
    const handleToken = LangChainTracer.prototype.handleLLMNewToken;
    vi.spyOn(LangChainTracer.prototype, "handleLLMNewToken").mockImplementation(function (this: LangChainTracer, token: string, ...rest: unknown[]) {
      tracerTokens.push(`${token} ${text(rest)}`);
      return (handleToken as (...a: unknown[]) => never).call(this, token, ...rest);
    } as never);
    for (const level of ["log", "info", "warn", "error", "debug"] as const) vi.spyOn(console, level).mockImplementation((...args: unknown[]) => { printed.push(text(args)); });
  });
  afterEach(() => {
    vi.restoreAllMocks();
    for (const k of ENV) { const v = saved.get(k); if (v === undefined) delete process.env[k]; else process.env[k] = v; }
  });

  /** No handler of the wrapped model heard anything; every tracer run, token, printed line and configured handler call is free of the e-mail; the wrapped model was never traced. */
  async function expectContained(innerName: string) {
    // LangChain runs handlers in the background: every one has had its turn before "nothing heard" is believed.
    await awaitAllCallbacks();
    expect(inner.calls).toEqual([]);
    expect(traced.length, "tracing is on: the SluiceChatModel's own run is traced").toBeGreaterThan(0);
    expect(traced.map((r) => r.name)).not.toContain(innerName);
    expect(printed.length, "verbose is on: the SluiceChatModel's own run is printed").toBeGreaterThan(0);
    expect(configured.length, "the configure hook's handler is on the SluiceChatModel's own run").toBeGreaterThan(0);
    expect([...traced.map((r) => r.text), ...tracerTokens, ...printed, ...configured].filter(leaksIn)).toEqual([]);
  }

  it("stream: no callback, listener, tracer, verbose line or configure hook hears a raw token of the wrapped model, given callbacks by its constructor, withConfig or withListeners", async () => {
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    const listened = new FakeStreamingChatModel({ chunks: chunks() }).withListeners({ onStart: (run) => { inner.calls.push(`listener start ${text(run)}`); }, onEnd: (run) => { inner.calls.push(`listener end ${text(run)}`); } });
    for (const model of [new FakeStreamingChatModel({ chunks: chunks(), callbacks: [inner.handler], verbose: true }), new FakeStreamingChatModel({ chunks: chunks() }).withConfig({ callbacks: [inner.handler] }), listened]) {
      const run = recorder();
      const got: string[] = [];
      for await (const c of await new SluiceChatModel({ model, host: h.host, context }).stream("write to me", { callbacks: [run.handler] })) got.push(text(c));
      await awaitAllCallbacks();
      expect(run.calls.filter((c) => c.startsWith("token ")).map((c) => c.slice(7))).not.toEqual([]);
      expect([...got, ...run.calls].filter(leaks)).toEqual([]);
      expect(got.join("")).toContain("[email]");
    }
    await expectContained("FakeStreamingChatModel");
  });

  it("invoke: the wrapped model's callbacks get neither its start nor its raw answer; the caller's get the redacted one", async () => {
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "model.chat.after" }]);
    const model = new FakeStreamingChatModel({ responses: [new AIMessage(`Write to ${EMAIL} today.`)], callbacks: [inner.handler] });
    const run = recorder();
    const r = await new SluiceChatModel({ model, host: h.host, context }).invoke("write to me", { callbacks: [run.handler] });
    await awaitAllCallbacks();
    expect(r.content).toBe(REDACTED);
    expect(run.calls.some((c) => c.startsWith("end ") && c.includes(REDACTED))).toBe(true);
    expect(run.calls.filter(leaks)).toEqual([]);
    await expectContained("FakeStreamingChatModel");
  });

  it("bindTools: the provider's own bindTools binds the call's tools (and tool_choice), and its bound callbacks hear nothing", async () => {
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    const provider = new ProviderModel({ chunks: chunks(), callbacks: [inner.handler] });
    const model = new SluiceChatModel({ model: provider, host: h.host, context }).bindTools([searchTool([])], { tool_choice: "auto" });
    let whole = "";
    for await (const c of await model.stream("write to me")) whole += c.text;
    expect(whole).toBe(REDACTED);
    expect(provider.seen).toMatchObject([{ tools: [{ name: "orders_search" }], tool_choice: "auto" }]);
    expect(Object.keys(provider.seen[0]!)).not.toContain("callbacks");
    await expectContained("ProviderModel");
  });

  it("createAgent with streamMode \"messages\": the agent's model, given callbacks itself, streams only redacted tokens to every consumer", async () => {
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    for (const model of [new ProviderModel({ chunks: chunks(), callbacks: [inner.handler] }), new ProviderModel({ chunks: chunks() }).withConfig({ callbacks: [inner.handler] })]) {
      const agent = createAgent({ model: model as never, tools: [searchTool([])], middleware: [sluiceMiddleware({ host: h.host, context })] });
      const run = recorder();
      const events: string[] = [];
      for await (const [message] of await agent.stream({ messages: [new HumanMessage("write to me")] }, { streamMode: "messages", callbacks: [run.handler] })) events.push(text(message));
      await awaitAllCallbacks();
      expect(events.length).toBeGreaterThan(0);
      expect(run.calls.filter((c) => c.startsWith("token ")).length).toBeGreaterThan(0);
      expect([...events, ...run.calls].filter(leaksIn)).toEqual([]);
    }
    await expectContained("ProviderModel");
  });
});

describe("sluice/langchain: what the wrapped model may be", () => {
  it("shows hooks the call's stop and tool_choice, hands the model a hook's change to them, and refuses one to a param LangChain keeps on the model", async () => {
    const seen: unknown[] = [];
    h.host.registerHook("params-seen", (req) => { seen.push((req.payload as { params?: unknown }).params); return { kind: "continue" }; });
    h.bind([
      { hookRef: "params-seen", point: "model.chat.before", config: {} },
      { point: "model.chat.before", config: { mode: "patch", path: "/params/stop", value: ["B"] } },
      { point: "model.chat.before", config: { mode: "patch", path: "/params/tool_choice", value: "required" } },
    ]);
    const model = fakeModel().respond(new AIMessage("done"));
    await new SluiceChatModel({ model, host: h.host, context }).invoke("hi", { stop: ["A"], tool_choice: "auto" });
    expect(seen[0]).toEqual({ stop: ["A"], tool_choice: "auto" });
    expect(model.calls[0]!.options).toMatchObject({ stop: ["B"], tool_choice: "any" });
    const other = fakeModel().respond(new AIMessage("done"));
    expect(() => optionsAfter({}, {}, { temperature: 0 })).toThrow(expect.objectContaining({ code: "PATCH_FORBIDDEN", details: { path: "/params/temperature" } }));
    expect(() => optionsAfter({}, {}, { tool_choice: null })).toThrow(expect.objectContaining({ code: "PATCH_FORBIDDEN", details: { path: "/params/tool_choice" } }));
    h.bind([{ point: "model.chat.before", config: { mode: "patch", path: "/params/tool_choice", value: { type: "bogus" } } }]);
    await expect(new SluiceChatModel({ model: other, host: h.host, context }).invoke("hi", { tool_choice: "auto" })).rejects.toMatchObject({ code: "PATCH_FORBIDDEN", details: { path: "/params/tool_choice" } });
    expect(other.calls).toHaveLength(0);
  });

  it("keeps the call options a binding carries and drops its callbacks", async () => {
    h.bind([]);
    const model = fakeModel().respond(new AIMessage("done"));
    const heard = recorder();
    await new SluiceChatModel({ model: model.withConfig({ stop: ["END"], callbacks: [heard.handler], tags: ["t"] } as never), host: h.host, context }).invoke("hi");
    expect(model.calls[0]!.options).toMatchObject({ stop: ["END"] });
    expect(Object.keys(model.calls[0]!.options as object)).not.toContain("callbacks");
    await awaitAllCallbacks();
    expect(heard.calls).toEqual([]);
  });

  it("streams the provider's model under a model createAgent builds from a name (initChatModel's ConfigurableModel)", async () => {
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    const heard = recorder();
    const provider = new FakeStreamingChatModel({ chunks: chunks(), callbacks: [heard.handler] });
    const named = new ConfigurableModel({ defaultConfig: { model: "gpt-4o" } });
    vi.spyOn(named, "_getModelInstance").mockResolvedValue(provider as never);
    const got: string[] = [];
    for await (const c of await new SluiceChatModel({ model: named, host: h.host, context }).stream("write to me")) got.push(c.text);
    expect(got.length).toBeGreaterThan(1);
    expect(got.join("")).toBe(REDACTED);
    await awaitAllCallbacks();
    expect(heard.calls).toEqual([]);
  });

  it("streams a model that does not stream as one piece: its text redacted, its tool calls whole", async () => {
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    const model = fakeModel().respond(new AIMessage({ content: `Mail ${EMAIL} now.`, tool_calls: [{ id: "call-1", name: "orders_search", args: { query: "shoes", limit: 5 } }] }));
    let whole: AIMessageChunk | undefined;
    for await (const c of await new SluiceChatModel({ model, host: h.host, context }).stream("hi")) whole = whole ? whole.concat(c) : c;
    expect(whole!.text).toBe("Mail [email] now.");
    expect(whole!.tool_calls).toMatchObject([{ id: "call-1", name: "orders_search", args: { query: "shoes", limit: 5 } }]);
    expect(model.callCount).toBe(1);
  });

  it("an invoke consults the wrapped model's own cache, and the cached answer still passes through the hooks", async () => {
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "model.chat.after", config: {} }]);
    const model = fakeModel().respond(new AIMessage(`mail ${EMAIL}`)).respond(new AIMessage("a second, different answer"));
    model.cache = new InMemoryCache();
    const wrapped = new SluiceChatModel({ model, host: h.host, context });
    const first = await wrapped.invoke("where is my order?");
    const second = await wrapped.invoke("where is my order?");
    expect(model.callCount).toBe(1);
    for (const r of [first, second]) {
      expect(String(r.content)).toContain("mail ");
      expect(leaks(String(r.content))).toBe(false);
    }
    expect(second.usage_metadata).toEqual({ input_tokens: 0, output_tokens: 0, total_tokens: 0 });
    // Keyed as LangChain keys it: the model's own invoke finds the same entry.
    await model.invoke("where is my order?");
    expect(model.callCount).toBe(1);
    // Another prompt is not served from the cache.
    expect(String((await wrapped.invoke("something else")).content)).toBe("a second, different answer");
    expect(model.callCount).toBe(2);
  });

  it("a timeout bound to the wrapped model aborts its call, as LangChain's own would", async () => {
    h.bind([]);
    class Hanging extends FakeStreamingChatModel {
      override async _generate(_m: CoreMessage[], options: this["ParsedCallOptions"]): Promise<never> {
        const signal = options.signal!;
        return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
      }
    }
    const started = Date.now();
    await expect(new SluiceChatModel({ model: new Hanging({}).withConfig({ timeout: 50 }), host: h.host, context }).invoke("hi")).rejects.toMatchObject({ name: "TimeoutError" });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("createAgent given a SluiceChatModel, bound or not, runs the hooks once per model call", async () => {
    let runs = 0;
    h.host.registerHook("count-model-calls", () => { runs++; return { kind: "continue" }; });
    h.bind([{ hookRef: "count-model-calls", point: "model.chat.before" }]);
    const wrapped = new SluiceChatModel({ model: fakeModel().respond(new AIMessage("one")).respond(new AIMessage("two")), host: h.host, context });
    for (const model of [wrapped, wrapped.withConfig({ tags: ["support"] })]) {
      await createAgent({ model: model as never, tools: [], middleware: [sluiceMiddleware({ host: h.host, context })] }).invoke({ messages: [new HumanMessage("hi")] });
    }
    expect(runs).toBe(2);
  });

  it("refuses, with CONFIG_INVALID naming it, a runnable that is not a chat model or a binding of one", () => {
    const model = () => new FakeStreamingChatModel({ chunks: chunks() });
    const cases: [unknown, string][] = [
      [model().withRetry(), "RunnableRetry"],
      [model().withFallbacks([model()]), "RunnableWithFallbacks"],
      [RunnableLambda.from(async () => new AIMessage("hi")), "RunnableLambda"],
      [model().withConfig({ tags: ["t"] }).withRetry(), "RunnableRetry"],
    ];
    for (const [wrapped, name] of cases) {
      let thrown: unknown;
      try { new SluiceChatModel({ model: wrapped as never, host: h.host, context }); } catch (e) { thrown = e; }
      expect(thrown, name).toMatchObject({ code: "CONFIG_INVALID", details: { wrapped: name }, message: expect.stringContaining(`not a ${name}`) });
      expect((thrown as Error).message).toContain("apply withRetry / withFallbacks to the SluiceChatModel");
    }
  });

  it("a call with tools to a model that cannot bind tools fails with CONFIG_INVALID naming the model", async () => {
    h.bind([]);
    const model = Object.assign(new FakeStreamingChatModel({ chunks: chunks() }), { bindTools: undefined });
    const bound = new SluiceChatModel({ model, host: h.host, context }).bindTools([searchTool([])]);
    await expect(bound.invoke("find shoes")).rejects.toMatchObject({ code: "CONFIG_INVALID", details: { wrapped: "FakeStreamingChatModel" }, message: expect.stringContaining("has no bindTools") });
  });

  it("createAgent: a model that cannot run without callbacks fails the model call with CONFIG_INVALID, never calling it", async () => {
    h.bind([]);
    const model = fakeModel().respond(new AIMessage("hi"));
    const agent = createAgent({ model: model.withRetry() as never, tools: [], middleware: [sluiceMiddleware({ host: h.host, context })] });
    await expect(agent.invoke({ messages: [new HumanMessage("hi")] })).rejects.toMatchObject({ cause: { code: "CONFIG_INVALID", details: { wrapped: "RunnableRetry" } } });
    expect(model.callCount).toBe(0);
  });
});
