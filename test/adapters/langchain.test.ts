/** sluice/langchain: the chat-model wrapper and the createAgent middleware against LangChain's own fake chat models. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent, tool } from "langchain";
import { AIMessage, AIMessageChunk, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { FakeStreamingChatModel } from "@langchain/core/utils/testing";
import { ChatGenerationChunk } from "@langchain/core/outputs";
import { fakeModel } from "@langchain/core/testing";
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
