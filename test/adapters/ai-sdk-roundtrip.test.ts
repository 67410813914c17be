/**
 * sluice/ai-sdk carries what it promises: the same fake model call, unwrapped and wrapped,
 * gives the same result field by field (every part with its provider metadata, sources,
 * tool calls, usage, response), except where a hook changed the text.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from "ai";
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test";
import type { LanguageModelV4GenerateResult, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { sluiceMiddleware } from "sluice/ai-sdk";
import { adapterHost, EMAIL, type AdapterHost } from "./setup.js";

let h: AdapterHost;
beforeAll(async () => { h = await adapterHost(); });
afterAll(() => h.close());

const usage = { inputTokens: { total: 30, noCache: 20, cacheRead: 10, cacheWrite: undefined }, outputTokens: { total: 50, text: 20, reasoning: 30 }, raw: { provider: "usage" } };
const meta = (tag: string) => ({ openai: { itemId: `item-${tag}` }, anthropic: { note: tag } });
const tools = { "orders.search": tool({ inputSchema: jsonSchema({ type: "object", properties: { query: { type: "string" } } }) }) };

/** Several text parts (the second carries the e-mail), reasoning with a signature, redacted reasoning, encrypted reasoning, a source, a tool call. */
const GENERATED: LanguageModelV4GenerateResult = {
  content: [
    { type: "reasoning", text: "The user wants orders.", providerMetadata: { anthropic: { signature: "sig-1" } } },
    { type: "reasoning", text: "", providerMetadata: { anthropic: { redactedData: "opaque-redacted" } } },
    { type: "reasoning", text: "Check the catalogue.", providerMetadata: { openai: { itemId: "rs_1", reasoningEncryptedContent: "enc-1" } } },
    { type: "text", text: "Here are your orders. ", providerMetadata: meta("t1") },
    { type: "source", sourceType: "url", id: "src-1", url: "https://shop.example.org/orders", title: "Orders page", providerMetadata: meta("s1") },
    { type: "text", text: `Write to ${EMAIL} for help.`, providerMetadata: meta("t2") },
    { type: "text", text: " Anything else?", providerMetadata: meta("t3") },
    { type: "tool-call", toolCallId: "call-1", toolName: "orders.search", input: "{\"query\":\"shoes\"}", providerMetadata: meta("c1") },
  ],
  finishReason: { unified: "tool-calls", raw: "tool_use" },
  usage,
  warnings: [{ type: "other", message: "a warning" }],
  providerMetadata: { anthropic: { cacheCreationInputTokens: 3 } },
  request: { body: { sent: true } },
  response: { id: "resp-1", modelId: "mock-model", timestamp: new Date(0), headers: { "x-request-id": "req-1" }, body: { raw: true } },
};

/** The same answer streamed: deltas split the e-mail, metadata on starts, deltas and ends. */
const STREAMED: LanguageModelV4StreamPart[] = [
  { type: "stream-start", warnings: [{ type: "other", message: "a warning" }] },
  { type: "response-metadata", id: "resp-1", modelId: "mock-model", timestamp: new Date(0) },
  { type: "reasoning-start", id: "r1", providerMetadata: { openai: { itemId: "rs_1", reasoningEncryptedContent: null } } },
  { type: "reasoning-delta", id: "r1", delta: "The user wants " },
  { type: "reasoning-delta", id: "r1", delta: "orders." },
  { type: "reasoning-delta", id: "r1", delta: "", providerMetadata: { anthropic: { signature: "sig-1" } } },
  { type: "reasoning-end", id: "r1", providerMetadata: { openai: { itemId: "rs_1", reasoningEncryptedContent: "enc-1" } } },
  { type: "reasoning-start", id: "r2", providerMetadata: { anthropic: { redactedData: "opaque-redacted" } } },
  { type: "reasoning-end", id: "r2" },
  { type: "text-start", id: "t1", providerMetadata: meta("t1") },
  { type: "text-delta", id: "t1", delta: "Here are your orders. " },
  { type: "text-end", id: "t1", providerMetadata: meta("t1-end") },
  { type: "source", sourceType: "url", id: "src-1", url: "https://shop.example.org/orders", title: "Orders page", providerMetadata: meta("s1") },
  { type: "text-start", id: "t2", providerMetadata: meta("t2") },
  { type: "text-delta", id: "t2", delta: "Write to alice." },
  { type: "text-delta", id: "t2", delta: "smith@example.com", providerMetadata: meta("t2-delta") },
  { type: "text-delta", id: "t2", delta: " for help." },
  { type: "text-end", id: "t2" },
  { type: "text-start", id: "t3", providerMetadata: meta("t3") },
  { type: "text-delta", id: "t3", delta: " Anything else?" },
  { type: "text-end", id: "t3", providerMetadata: meta("t3-end") },
  { type: "tool-input-start", id: "call-1", toolName: "orders.search", providerMetadata: meta("c1") },
  { type: "tool-input-delta", id: "call-1", delta: "{\"query\":" },
  { type: "tool-input-delta", id: "call-1", delta: "\"shoes\"}" },
  { type: "tool-input-end", id: "call-1" },
  { type: "tool-call", toolCallId: "call-1", toolName: "orders.search", input: "{\"query\":\"shoes\"}", providerMetadata: meta("c1") },
  { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_use" }, usage, providerMetadata: { anthropic: { cacheCreationInputTokens: 3 } } },
];

const wrapped = (inner: MockLanguageModelV4) => wrapLanguageModel({ model: inner, middleware: sluiceMiddleware({ host: h.host, context: { spaceId: "space-a" } }) });
const noop = (point: "model.chat.before" | "model.chat.after" | "model.chat.chunk") => ({ point, config: { mode: "continue" } });
/** The unwrapped result with the redaction as the only change. */
const redacted = (v: unknown): unknown => JSON.parse(JSON.stringify(v).replaceAll(EMAIL, "[email]"));
/** JSON of a result, without the AI SDK's timings (they differ from run to run). */
const plain = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (key, value: unknown) => (key === "performance" ? undefined : value)));

async function generated(wrap: boolean) {
  const inner = new MockLanguageModelV4({ doGenerate: structuredClone(GENERATED) });
  const r = await generateText({ model: wrap ? wrapped(inner) : inner, tools, prompt: "my orders" });
  return plain({
    content: r.content, text: r.text, reasoning: r.reasoning, reasoningText: r.reasoningText, sources: r.sources, toolCalls: r.toolCalls,
    finishReason: r.finishReason, rawFinishReason: r.rawFinishReason, usage: r.usage, providerMetadata: r.providerMetadata, warnings: r.warnings,
    response: r.response, request: r.request, steps: r.steps.map((s) => ({ content: s.content, usage: s.usage, providerMetadata: s.providerMetadata, response: s.response })),
  });
}

async function streamed(wrap: boolean) {
  const inner = new MockLanguageModelV4({ doStream: { stream: convertArrayToReadableStream(structuredClone(STREAMED)), request: { body: { sent: true } }, response: { headers: { "x-request-id": "req-1" } } } });
  const r = streamText({ model: wrap ? wrapped(inner) : inner, tools, prompt: "my orders" });
  const parts: unknown[] = [];
  for await (const p of r.fullStream) parts.push(p);
  return plain({
    parts, content: await r.content, text: await r.text, reasoning: await r.reasoning, reasoningText: await r.reasoningText, sources: await r.sources, toolCalls: await r.toolCalls,
    finishReason: await r.finishReason, usage: await r.usage, providerMetadata: await r.providerMetadata, response: await r.response, request: await r.request,
    steps: (await r.steps).map((s) => ({ content: s.content, providerMetadata: s.providerMetadata })),
  });
}

/**
 * A streamed result with its stream parts grouped by part (each part's deltas joined, in
 * the order the parts started): a chunk hook that holds text back splits the text into
 * other deltas, and a part's end then waits for its held text.
 */
function byPart(v: unknown): unknown {
  const r = v as { parts: { type: string; id?: string; delta?: string; text?: string }[] };
  const groups = new Map<string, unknown[]>();
  const unnamed = new Map<string, number>();
  for (const p of r.parts) {
    const n = unnamed.get(p.type) ?? 0;
    if (p.id === undefined) unnamed.set(p.type, n + 1);
    const key = p.id ?? `${p.type}#${n}`;
    const list = groups.get(key) ?? groups.set(key, []).get(key)!;
    const prev = list.at(-1) as { type: string; text: string } | undefined;
    if (p.type.endsWith("-delta") && prev?.type === p.type) prev.text += p.text ?? "";
    else list.push(p.type.endsWith("-delta") ? { type: p.type, text: p.text ?? "" } : p);
  }
  return { ...r, parts: [...groups.entries()] };
}

describe("sluice/ai-sdk round trip", () => {
  it("generateText: with hooks that do nothing, the result equals the unwrapped call's, part for part", async () => {
    const bare = await generated(false);
    h.bind([noop("model.chat.before"), noop("model.chat.after")]);
    expect(await generated(true)).toEqual(bare);
  });

  it("generateText: a redaction at model.chat.after changes only the text part it redacted", async () => {
    const bare = await generated(false);
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "model.chat.after" }]);
    const got = await generated(true);
    expect(got).toEqual(redacted(bare));
    expect((got as { content: { text?: string }[] }).content[5]!.text).toBe("Write to [email] for help.");
  });

  it("streamText: with chunk hooks that do nothing, every stream part and the result equal the unwrapped call's", async () => {
    const bare = await streamed(false);
    h.bind([noop("model.chat.before"), noop("model.chat.chunk")]);
    expect(await streamed(true)).toEqual(bare);
  });

  it("streamText: with an after hook that may change the answer (the text held back), the result still equals the unwrapped call's", async () => {
    const bare = await streamed(false);
    h.bind([noop("model.chat.before"), noop("model.chat.chunk"), noop("model.chat.after")]);
    expect(await streamed(true)).toEqual(bare);
  });

  it("streamText: a chunk redaction changes only the deltas of the part it redacted", async () => {
    const bare = await streamed(false);
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    const got = await streamed(true);
    expect(JSON.stringify(got)).not.toContain("smith");
    expect(byPart(got)).toEqual(redacted(byPart(bare)));
  });

  it("streamText: a redaction at model.chat.after is mapped back onto the part it came from", async () => {
    const bare = await streamed(false);
    h.bind([{ hookRef: "pii-redact@1.0.0", point: "model.chat.after" }]);
    const got = await streamed(true);
    expect(JSON.stringify(got)).not.toContain("smith");
    expect(byPart(got)).toEqual(redacted(byPart(bare)));
  });

  it("a multi-step streamText sends the model back its reasoning with its encrypted and redacted data and every part's metadata, as without Sluice", async () => {
    const prompts = async (wrap: boolean) => {
      const second: LanguageModelV4StreamPart[] = [{ type: "text-start", id: "x" }, { type: "text-delta", id: "x", delta: "done" }, { type: "text-end", id: "x" }, { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage }];
      const inner = new MockLanguageModelV4({ doStream: [{ stream: convertArrayToReadableStream(structuredClone(STREAMED)) }, { stream: convertArrayToReadableStream(second) }] });
      const executing = { "orders.search": tool({ inputSchema: jsonSchema({ type: "object", properties: { query: { type: "string" } } }), execute: async () => "2 orders" }) };
      const r = streamText({ model: wrap ? wrapped(inner) : inner, tools: executing, prompt: "my orders", stopWhen: stepCountIs(2) });
      await r.consumeStream();
      return plain(inner.doStreamCalls[1]!.prompt);
    };
    const bare = await prompts(false);
    expect(JSON.stringify(bare)).toContain("enc-1");
    expect(JSON.stringify(bare)).toContain("opaque-redacted");
    h.bind([noop("model.chat.before"), noop("model.chat.chunk"), noop("model.chat.after")]);
    expect(await prompts(true)).toEqual(bare);
  });
});
