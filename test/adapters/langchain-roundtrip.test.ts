/**
 * sluice/langchain carries what it promises: the same fake model call, unwrapped and
 * wrapped, gives the same message field by field (content blocks, reasoning blocks,
 * additional kwargs, response metadata, usage, tool calls), except where a hook changed the text.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AIMessage, AIMessageChunk, isAIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import { FakeStreamingChatModel } from "@langchain/core/utils/testing";
import { fakeModel } from "@langchain/core/testing";
import { SluiceChatModel } from "sluice/langchain";
import { adapterHost, EMAIL, type AdapterHost } from "./setup.js";

let h: AdapterHost;
beforeAll(async () => { h = await adapterHost(); });
afterAll(() => h.close());

const usage = { input_tokens: 30, output_tokens: 50, total_tokens: 80, input_token_details: { cache_read: 10 }, output_token_details: { reasoning: 30 } };
const call = { id: "call-1", name: "orders_search", args: { query: "shoes" }, type: "tool_call" as const };

/** Reasoning in the kwargs and in blocks (with a signature), several text blocks (the second carries the e-mail), a tool call. */
const message = () => new AIMessage({
  id: "msg-1",
  content: [
    { type: "reasoning", reasoning: "The user wants orders.", signature: "sig-1", id: "rs_1" },
    { type: "text", text: "Here are your orders. ", annotations: [{ type: "citation", url: "https://shop.example.org/orders", title: "Orders page" }] },
    { type: "text", text: `Write to ${EMAIL} for help.`, id: "t2" },
    { type: "text", text: " Anything else?", extras: { note: "t3" } },
  ],
  additional_kwargs: { reasoning_content: "Thinking out loud. ", provider_field: { kept: true } },
  response_metadata: { model_name: "fake-model-1", finish_reason: "tool_calls", system_fingerprint: "fp-1" },
  usage_metadata: usage,
  tool_calls: [call],
});

/** The same answer streamed: blocks by index, the e-mail split across chunks, tool call chunks, model name and usage in the last chunk. */
const chunks = () => [
  new AIMessageChunk({ id: "msg-1", content: [{ type: "reasoning", reasoning: "The user wants ", index: 0 }], additional_kwargs: { reasoning_content: "Thinking out loud. " } }),
  new AIMessageChunk({ id: "msg-1", content: [{ type: "reasoning", reasoning: "orders.", signature: "sig-1", index: 0 }] }),
  new AIMessageChunk({ id: "msg-1", content: [{ type: "text", text: "Here are your orders. ", index: 1, annotations: [{ type: "citation", url: "https://shop.example.org/orders" }] }] }),
  new AIMessageChunk({ id: "msg-1", content: [{ type: "text", text: "Write to alice.", index: 2 }] }),
  new AIMessageChunk({ id: "msg-1", content: [{ type: "text", text: "smith@example.com", index: 2 }] }),
  new AIMessageChunk({ id: "msg-1", content: [{ type: "text", text: " for help.", index: 2 }] }),
  new AIMessageChunk({ id: "msg-1", content: [{ type: "text", text: " Anything else?", index: 3 }] }),
  new AIMessageChunk({ id: "msg-1", content: [], tool_call_chunks: [{ type: "tool_call_chunk", index: 0, id: "call-1", name: "orders_search", args: "{\"query\":" }] }),
  new AIMessageChunk({ id: "msg-1", content: [], tool_call_chunks: [{ type: "tool_call_chunk", index: 0, args: "\"shoes\"}" }] }),
  new AIMessageChunk({ id: "msg-1", content: [], response_metadata: { model_name: "fake-model-1", finish_reason: "tool_calls" }, usage_metadata: usage }),
];

/** LangChain's own fake, answering with the rich message and chunks above. */
class RichModel extends FakeStreamingChatModel {
  constructor() { super({ sleep: 0 }); }
  override async _generate(): Promise<ChatResult> {
    return { generations: [{ text: "", message: message() }], llmOutput: { provider: "fake" } };
  }
  override async *_streamResponseChunks(): AsyncGenerator<ChatGenerationChunk> {
    for (const c of chunks()) yield new ChatGenerationChunk({ message: c, text: typeof c.content === "string" ? c.content : "" });
  }
}

const view = (m: BaseMessage) => JSON.parse(JSON.stringify({
  id: m.id, content: m.content, text: m.text, additional_kwargs: m.additional_kwargs, response_metadata: m.response_metadata,
  usage_metadata: (m as AIMessage).usage_metadata, tool_calls: (m as AIMessage).tool_calls, invalid_tool_calls: (m as AIMessage).invalid_tool_calls,
})) as Record<string, unknown>;
/** What LangChain itself adds per model class (its provider name): not the adapter's to carry. */
const comparable = (v: Record<string, unknown>): Record<string, unknown> => ({ ...v, response_metadata: { ...(v.response_metadata as object), model_provider: undefined } });
const redacted = (v: unknown): unknown => JSON.parse(JSON.stringify(v).replaceAll(EMAIL, "[email]"));
const wrap = () => new SluiceChatModel({ model: new RichModel(), host: h.host, context: { spaceId: "space-a" } });
const noop = (point: "model.chat.before" | "model.chat.after" | "model.chat.chunk") => ({ point, config: { mode: "continue" } });

async function invoked(wrapped: boolean) {
  return comparable(view(await (wrapped ? wrap() : new RichModel()).invoke("my orders")));
}

async function streamed(wrapped: boolean) {
  const got: AIMessageChunk[] = [];
  for await (const c of await (wrapped ? wrap() : new RichModel()).stream("my orders")) got.push(c);
  const whole = got.reduce((a, b) => a.concat(b));
  return { chunks: got.map((c) => comparable(view(c))), whole: comparable(view(whole)) };
}

describe("sluice/langchain round trip", () => {
  it("invoke: with hooks that do nothing, the message equals the unwrapped call's, block for block", async () => {
    const bare = await invoked(false);
    h.bind([noop("model.chat.before"), noop("model.chat.after")]);
    expect(await invoked(true)).toEqual(bare);
  });

  it("invoke: a redaction at model.chat.after changes only the text block it redacted", async () => {
    const bare = await invoked(false);
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "model.chat.after" }]);
    const got = await invoked(true);
    expect(got).toEqual(redacted(bare));
    expect((got.content as { text?: string }[])[2]!.text).toBe("Write to [email] for help.");
  });

  it("stream: with chunk hooks that do nothing, every chunk equals the unwrapped call's", async () => {
    const bare = await streamed(false);
    h.bind([noop("model.chat.before"), noop("model.chat.chunk")]);
    expect(await streamed(true)).toEqual(bare);
  });

  it("stream: with an after hook that may change the answer (the text held back), every chunk still equals the unwrapped call's", async () => {
    const bare = await streamed(false);
    h.bind([noop("model.chat.before"), noop("model.chat.chunk"), noop("model.chat.after")]);
    expect(await streamed(true)).toEqual(bare);
  });

  it("stream: a chunk redaction changes only the text of the block it redacted", async () => {
    const bare = await streamed(false);
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    const got = await streamed(true);
    expect(JSON.stringify(got)).not.toContain("smith");
    expect(got.whole).toEqual(redacted(bare.whole));
  });

  it("stream: a redaction at model.chat.after is mapped back onto the block it came from", async () => {
    const bare = await streamed(false);
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "model.chat.after" }]);
    const got = await streamed(true);
    expect(JSON.stringify(got)).not.toContain("smith");
    expect(got.whole).toEqual(redacted(bare.whole));
  });

  it("stream of a model that does not stream: the consumer gets a chunk (it concatenates), with the message's own fields", async () => {
    h.bind([noop("model.chat.before"), noop("model.chat.chunk")]);
    const got: AIMessageChunk[] = [];
    for await (const c of await new SluiceChatModel({ model: fakeModel().respond(message()), host: h.host, context: { spaceId: "space-a" } }).stream("my orders")) got.push(c);
    const whole = got.reduce((a, b) => a.concat(b));
    expect(comparable(view(whole))).toMatchObject({ id: "msg-1", content: message().content, additional_kwargs: message().additional_kwargs, usage_metadata: usage, tool_calls: [call] });
    const plainText: AIMessageChunk[] = [];
    const answer = new AIMessage({ id: "msg-2", content: "plain answer", response_metadata: { model_name: "fake-model-2" } });
    for await (const c of await new SluiceChatModel({ model: fakeModel().respond(answer), host: h.host, context: { spaceId: "space-a" } }).stream("hi")) plainText.push(c);
    expect(plainText.every((c) => isAIMessageChunk(c))).toBe(true);
    expect(comparable(view(plainText[0]!))).toMatchObject({ id: "msg-2", content: "plain answer", response_metadata: { model_name: "fake-model-2" } });
  });
});
