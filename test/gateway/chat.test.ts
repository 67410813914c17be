/** The gateway seen by the official openai client: chat completions, streamed and not, with hooks. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import type { RequestEnvelope } from "../../abi/envelope.js";
import { answerOf, TOOL_ARGUMENTS } from "./upstream-stub.js";
import { startGateway, type GatewayUnderTest } from "./setup.js";

let gw: GatewayUnderTest;
const seen: RequestEnvelope[] = [];
beforeAll(async () => {
  gw = await startGateway();
  gw.host.registerHook("spy", (req) => { seen.push(req); return { kind: "continue" }; });
});
afterAll(() => gw.close());

async function collect(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
  for await (const c of stream) chunks.push(c);
  return { chunks, text: chunks.map((c) => c.choices[0]?.delta.content ?? "").join("") };
}

describe("gateway chat completions", () => {
  it("answers a plain completion from the upstream, with the upstream's key and usage mapped for the hooks", async () => {
    seen.length = 0;
    gw.bind([{ id: "spy-before", hookRef: "spy", point: "model.chat.before" }, { id: "spy-after", hookRef: "spy", point: "model.chat.after" }]);
    const r = await gw.client.chat.completions.create({ model: "m1", messages: [{ role: "system", content: "be brief" }, { role: "user", content: "hi" }], temperature: 0.5 });
    expect(r.choices[0]?.message.content).toBe(answerOf("hi"));
    expect(r.choices[0]?.finish_reason).toBe("stop");
    expect(r).toMatchObject({ id: "chatcmpl-stub", object: "chat.completion", model: "m1-upstream", usage: { prompt_tokens: 2, completion_tokens: 7, total_tokens: 9 } });
    expect(gw.stub.authorizations.at(-1)).toBe("Bearer sk-upstream-secret");
    expect(gw.stub.bodies.at(-1)).toMatchObject({ model: "m1", temperature: 0.5, stream: false });
    const [before, after] = seen;
    expect(before?.context).toMatchObject({ space_id: "space-a", actor_id: gw.key.id, point: "model.chat.before", purpose: "action" });
    expect(before?.payload).toEqual({ model: "m1", messages: [{ role: "system", content: "be brief" }, { role: "user", content: "hi" }], params: { temperature: 0.5 }, purpose: "action", stream: false });
    expect(after?.payload).toMatchObject({ content: answerOf("hi"), finish_reason: "stop", usage: { input_tokens: 2, output_tokens: 7 }, provider_request_id: "chatcmpl-stub" });
  });

  it("forwards what before hooks changed, and shows the client what after hooks changed", async () => {
    gw.bind([
      { id: "rewrite", point: "model.chat.before", config: { mode: "patch", path: "/messages/0/content", value: "rewritten" } },
      { id: "suffix", point: "model.chat.after", config: { mode: "append", tag: " [checked]" } },
    ]);
    const r = await gw.client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "original" }] });
    expect(gw.stub.bodies.at(-1)?.messages).toEqual([{ role: "user", content: "rewritten" }]);
    expect(r.choices[0]?.message.content).toBe(`${answerOf("rewritten")} [checked]`);
  });

  it("streams a completion chunk by chunk, ending with finish_reason and the usage the client asked for", async () => {
    gw.bind([]);
    const stream = await gw.client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "stream please" }], stream: true, stream_options: { include_usage: true } });
    const { chunks, text } = await collect(stream);
    expect(text).toBe(answerOf("stream please"));
    expect(chunks[0]?.choices[0]?.delta.role).toBe("assistant");
    expect(chunks.length).toBeGreaterThan(4);
    expect(new Set(chunks.map((c) => c.id))).toEqual(new Set(["chatcmpl-stub"]));
    expect(chunks.at(-2)?.choices[0]?.finish_reason).toBe("stop");
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 13, completion_tokens: 7 } });
  });

  it("refuses a rejected prompt with the hook's code and reason as an OpenAI error, without calling the upstream", async () => {
    gw.bind([{ id: "guard", hookRef: "prompt-guard@1.0.0", point: "model.chat.before", config: { deny: ["salary"] } }]);
    const calls = gw.stub.chatCalls;
    for (const stream of [false, true]) {
      const err = await gw.client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "what is the CEO's salary?" }], stream }).then(() => null, (e) => e);
      expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
      expect(err).toMatchObject({ status: 403, code: "prompt.denied", type: "permission_error", error: { message: expect.stringMatching(/deny pattern 0/), sluice_code: "HOOK_REJECTED" } });
    }
    expect(gw.stub.chatCalls).toBe(calls);
  });

  it("redacts a stream whose pattern the upstream split across chunks, never sending any piece of it", async () => {
    gw.bind([{ id: "pii", hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    const stream = await gw.client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "mail alice@example.com now" }], stream: true });
    const { chunks, text } = await collect(stream);
    expect(text).toBe(answerOf("mail [email] now"));
    expect(chunks.some((c) => /alic|@ex|ample/.test(c.choices[0]?.delta.content ?? ""))).toBe(false);
  });

  it("ends a stream blocked mid-way with an error event the client raises, sending nothing after it", async () => {
    gw.bind([{ id: "stop-word", point: "model.chat.chunk", config: { mode: "block-on", needle: "BAD" } }]);
    const stream = await gw.client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "some text then BAD and more" }], stream: true });
    let text = "";
    const err = await (async () => { for await (const c of stream) text += c.choices[0]?.delta.content ?? ""; })().then(() => null, (e) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err).toMatchObject({ code: "content.blocked", error: { sluice_code: "HOOK_BLOCKED" } });
    expect(answerOf("some text then BAD and more").startsWith(text)).toBe(true);
    expect(text).not.toContain("BAD");
  });

  it("serves a repeated question from the response cache without calling the upstream again", async () => {
    gw.bind([
      { id: "cache-before", hookRef: "response-cache@1.1.0", point: "model.chat.before" },
      { id: "cache-after", hookRef: "response-cache@1.1.0", point: "model.chat.after" },
    ]);
    const ask = () => gw.client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "cache me" }] });
    const first = await ask();
    const calls = gw.stub.chatCalls;
    const second = await ask();
    expect(gw.stub.chatCalls).toBe(calls);
    expect(second.choices[0]?.message.content).toBe(first.choices[0]?.message.content);
    expect(second.id).not.toBe("chatcmpl-stub");
    // A short-circuited stream is well formed too.
    const { text, chunks } = await collect(await gw.client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "cache me" }], stream: true }));
    expect(gw.stub.chatCalls).toBe(calls);
    expect(text).toBe(answerOf("cache me"));
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("stop");
  });

  it("passes tool_calls through intact, and the tool result round-trips to the upstream", async () => {
    gw.bind([{ id: "spy", hookRef: "spy", point: "model.chat.before" }]);
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [{ type: "function", function: { name: "weather", description: "Weather in a city", parameters: { type: "object", properties: { city: { type: "string" } } } } }];
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: "user", content: "weather in Paris?" }];
    const first = await gw.client.chat.completions.create({ model: "m1", messages, tools });
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(first.choices[0]?.finish_reason).toBe("tool_calls");
    expect(call).toEqual({ id: "call_1", type: "function", function: { name: "weather", arguments: TOOL_ARGUMENTS.join("") } });
    expect(gw.stub.bodies.at(-1)?.tools).toEqual(tools);

    messages.push(first.choices[0]!.message as OpenAI.Chat.Completions.ChatCompletionMessageParam, { role: "tool", tool_call_id: "call_1", content: "sunny" });
    const second = await gw.client.chat.completions.create({ model: "m1", messages, tools });
    expect(second.choices[0]?.message.content).toBe("tool said: sunny");
    expect(gw.stub.bodies.at(-1)?.messages.slice(1)).toEqual([
      { role: "assistant", content: null, refusal: null, tool_calls: [call] },
      { role: "tool", tool_call_id: "call_1", content: "sunny" },
    ]);
  });

  it("relays streamed tool_call deltas as the upstream sent them, in order", async () => {
    gw.bind([{ id: "tagger", point: "model.chat.chunk", config: { mode: "continue" } }]);
    const stream = await gw.client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "weather?" }], tools: [{ type: "function", function: { name: "weather", parameters: {} } }], stream: true });
    const { chunks } = await collect(stream);
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(deltas.map((d) => d.function?.arguments)).toEqual(TOOL_ARGUMENTS);
    expect(deltas[0]).toMatchObject({ index: 0, id: "call_1", type: "function", function: { name: "weather" } });
    expect(JSON.parse(deltas.map((d) => d.function?.arguments).join(""))).toEqual({ city: "Paris" });
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("tool_calls");
  });
});

describe("gateway chat completions: reasoning text", () => {
  it("relays the upstream's reasoning through the chunk hooks: a redacting chunk hook changes what the client gets, streamed and not", async () => {
    gw.host.registerHook("no-greets", (req) => {
      const delta = String((req.payload as { delta?: unknown }).delta ?? "");
      return delta.includes("greets") ? { kind: "redact", content: delta.replace("greets", "[x]") } : { kind: "continue" };
    });
    gw.bind([{ id: "r", hookRef: "no-greets", point: "model.chat.chunk" }]);
    const stream = await gw.client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "hello [think]" }], stream: true });
    const { chunks, text } = await collect(stream);
    const reasoning = chunks.map((c) => (c.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? "").join("");
    expect(reasoning).toBe("The user [x]; answer in kind.");
    expect(JSON.stringify(chunks)).not.toContain("greets");
    expect(text).toBe(answerOf("hello [think]"));
  });

  it("gives the answer's reasoning to after hooks, and the client the reasoning they left", async () => {
    gw.host.registerHook("after-greets", (req) => ({ kind: "patch_output", patch: [{ op: "replace", path: "/reasoning_content", value: String((req.payload as { reasoning_content?: unknown }).reasoning_content).replace("greets", "[y]") }] }));
    gw.bind([{ id: "a", hookRef: "after-greets", point: "model.chat.after" }]);
    const r = await gw.client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "hello [think]" }] });
    expect((r.choices[0]?.message as { reasoning_content?: string }).reasoning_content).toBe("The user [y]; answer in kind.");
  });
});

describe("gateway chat completions: the token limit", () => {
  it("a hook's change to max_tokens reaches the upstream under the client's key; a second limit a hook adds is refused with PATCH_FORBIDDEN and nothing is sent", async () => {
    gw.host.registerHook("clamp-tokens", () => ({ kind: "patch_input", patch: [{ op: "replace", path: "/params/max_tokens", value: 10 }] }));
    gw.bind([{ id: "clamp", hookRef: "clamp-tokens", point: "model.chat.before" }]);
    await gw.client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "hi" }], max_completion_tokens: 500 });
    expect(gw.stub.bodies.at(-1)).toMatchObject({ max_completion_tokens: 10 });
    expect(gw.stub.bodies.at(-1)).not.toHaveProperty("max_tokens");
    gw.host.registerHook("second-limit", () => ({ kind: "patch_input", patch: [{ op: "add", path: "/params/max_completion_tokens", value: 10 }] }));
    gw.bind([{ id: "second", hookRef: "second-limit", point: "model.chat.before" }]);
    const sent = gw.stub.bodies.length;
    const err = await gw.client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "hi" }], max_tokens: 500 }).catch((e: unknown) => e);
    expect(JSON.stringify((err as { error?: unknown }).error ?? err)).toContain("PATCH_FORBIDDEN");
    expect(JSON.stringify((err as { error?: unknown }).error ?? err)).toContain("max_completion_tokens");
    expect(gw.stub.bodies.length).toBe(sent);
  });
});

describe("gateway chat completions: real bodies pass through", () => {
  it("forwards what the AI SDK sends (content parts, file and audio parts, provider options) unchanged, and shows the hooks the parts", async () => {
    const { AI_SDK } = await import("../fixtures/payloads/frameworks.js");
    const { params, tools, ...rest } = structuredClone(AI_SDK.request) as Record<string, any>;
    const { stream_options: _so, ...options } = params;
    const wire = { ...rest, tools: tools.map((t: Record<string, unknown>) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } })), ...options };
    seen.length = 0;
    gw.bind([{ id: "spy-before", hookRef: "spy", point: "model.chat.before" }]);
    const r = await gw.client.chat.completions.create(wire as never);
    expect(r.choices[0]?.finish_reason).toBeDefined();
    expect(gw.stub.bodies.at(-1)).toEqual({ ...wire, stream: false });
    const view = seen[0]!.payload as { messages: { content: unknown }[]; params: Record<string, unknown> };
    expect(view.messages[1]!.content).toEqual(AI_SDK.request.messages[1]!.content);
    expect(view.params).toMatchObject({ seed: 42, logit_bias: { "50256": -100 }, parallel_tool_calls: false, tool_choice: "auto", stop: ["END"] });
    expect(view.params).not.toHaveProperty("store");
  });
});
