/** The Responses API through the gateway, seen by the official openai client: the same hooks, payloads and guarantees as chat. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import type { RequestEnvelope } from "../../abi/envelope.js";
import { answerOf, REASONING, TOOL_ARGUMENTS } from "./upstream-stub.js";
import { startGateway, type GatewayUnderTest } from "./setup.js";
import { until } from "../helpers/until.js";

let gw: GatewayUnderTest;
const seen: RequestEnvelope[] = [];
beforeAll(async () => {
  gw = await startGateway();
  gw.host.registerHook("spy", (req) => { seen.push(req); return { kind: "continue" }; });
});
afterAll(() => gw.close());

type Event = OpenAI.Responses.ResponseStreamEvent;
async function collect(stream: AsyncIterable<Event>) {
  const events: Event[] = [];
  for await (const e of stream) events.push(e);
  const text = events.flatMap((e) => (e.type === "response.output_text.delta" ? [e.delta] : [])).join("");
  const completed = events.at(-1)?.type === "response.completed" || events.at(-1)?.type === "response.incomplete" ? (events.at(-1) as OpenAI.Responses.ResponseCompletedEvent).response : undefined;
  return { events, text, completed, types: events.map((e) => e.type) };
}
const failure = (p: Promise<unknown>) => p.then(() => { throw new Error("expected a failure"); }, (e) => e);
const stream = (input: OpenAI.Responses.ResponseCreateParams["input"], more: Partial<OpenAI.Responses.ResponseCreateParamsStreaming> = {}) =>
  gw.client.responses.create({ model: "m1", input, stream: true, ...more });
const tools: OpenAI.Responses.Tool[] = [{ type: "function", name: "weather", description: "Weather in a city", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false }];

describe("gateway responses API", () => {
  it("answers a response from a chat upstream, showing hooks exactly the payload a chat call shows them", async () => {
    gw.bind([{ id: "spy-before", hookRef: "spy", point: "model.chat.before" }, { id: "spy-after", hookRef: "spy", point: "model.chat.after" }]);
    seen.length = 0;
    const r = await gw.client.responses.create({ model: "m1", instructions: "be brief", input: "hi", temperature: 0.5 });
    expect(r.output_text).toBe(answerOf("hi"));
    expect(r).toMatchObject({ object: "response", status: "completed", model: "m1-upstream", usage: { input_tokens: 2, output_tokens: 7, total_tokens: 9 } });
    expect(r.id).toMatch(/^resp_/);
    expect(r.output).toEqual([{ id: expect.stringMatching(/^msg_/), type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text: answerOf("hi"), annotations: [], logprobs: [] }] }]);
    expect(gw.stub.bodies.at(-1)).toEqual({ model: "m1", messages: [{ role: "system", content: "be brief" }, { role: "user", content: "hi" }], temperature: 0.5, stream: false });
    expect(gw.stub.authorizations.at(-1)).toBe("Bearer sk-upstream-secret");
    const fromResponses = seen.map((s) => s.payload);
    seen.length = 0;
    await gw.client.chat.completions.create({ model: "m1", messages: [{ role: "system", content: "be brief" }, { role: "user", content: "hi" }], temperature: 0.5 });
    expect(fromResponses).toEqual(seen.map((s) => s.payload));
    expect(fromResponses[0]).toEqual({ model: "m1", messages: [{ role: "system", content: "be brief" }, { role: "user", content: "hi" }], params: { temperature: 0.5 }, purpose: "action", stream: false });
  });

  it("forwards what before hooks changed, and answers what after hooks changed", async () => {
    gw.bind([
      { id: "rewrite", point: "model.chat.before", config: { mode: "patch", path: "/messages/0/content", value: "rewritten" } },
      { id: "suffix", point: "model.chat.after", config: { mode: "append", tag: " [checked]" } },
    ]);
    const r = await gw.client.responses.create({ model: "m1", input: [{ role: "user", content: [{ type: "input_text", text: "original" }] }], max_output_tokens: 50 });
    expect(gw.stub.bodies.at(-1)).toMatchObject({ messages: [{ role: "user", content: "rewritten" }], max_tokens: 50 });
    expect(r.output_text).toBe(`${answerOf("rewritten")} [checked]`);
  });

  it("streams the response's events in order, text deltas between the item's opening and closing, ending with response.completed", async () => {
    gw.bind([]);
    const { events, text, completed, types } = await collect(await stream("stream please"));
    expect(text).toBe(answerOf("stream please"));
    const deltas = types.filter((t) => t === "response.output_text.delta").length;
    expect(deltas).toBeGreaterThan(3);
    expect(types).toEqual([
      "response.created", "response.in_progress", "response.output_item.added", "response.content_part.added",
      ...Array(deltas).fill("response.output_text.delta"),
      "response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed",
    ]);
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(completed).toMatchObject({ status: "completed", usage: { input_tokens: 13, output_tokens: 7, total_tokens: 20 } });
    expect(completed?.output).toEqual([{ id: expect.stringMatching(/^msg_/), type: "message", status: "completed", role: "assistant", content: [{ type: "output_text", text, annotations: [], logprobs: [] }] }]);
  });

  it("refuses a rejected prompt with the hook's code and reason, streamed or not, without calling the upstream", async () => {
    gw.bind([{ id: "guard", hookRef: "prompt-guard@1.0.0", point: "model.chat.before", config: { deny: ["salary"] } }]);
    const calls = gw.stub.chatCalls;
    for (const s of [false, true]) {
      const err = await failure(gw.client.responses.create({ model: "m1", input: "what is the CEO's salary?", stream: s }));
      expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
      expect(err).toMatchObject({ status: 403, code: "prompt.denied", error: { sluice_code: "HOOK_REJECTED" } });
    }
    expect(gw.stub.chatCalls).toBe(calls);
  });

  it("redacts a pattern the upstream split across chunks, never sending any piece of it", async () => {
    gw.bind([{ id: "pii", hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    const { events, text, completed } = await collect(await stream("mail alice@example.com now"));
    expect(text).toBe(answerOf("mail [email] now"));
    expect(JSON.stringify(events)).not.toMatch(/alic|@ex|ample/);
    expect(completed?.output[0]).toMatchObject({ content: [{ text }] });
  });

  it("holds a stream back until pii-redact ran at model.chat.after: no digit of the phone number is sent", async () => {
    gw.bind([{ id: "pii", hookRef: "pii-redact@1.0.0", point: "model.chat.after" }]);
    const { events, text } = await collect(await stream("call +1 (555) 123-4567"));
    expect(text).toBe(answerOf("call [phone]"));
    // Numbers (created_at, sequence numbers) and random ids are left out: they may contain "123" or "555" by chance.
    const sentText = JSON.stringify(events.filter((e) => e.type !== "response.created" && e.type !== "response.in_progress"), (k, v: unknown) => (typeof v === "number" || k === "id" || k === "item_id" ? undefined : v));
    expect(sentText).not.toMatch(/555|123|4567/);
  });

  it("ends a stream blocked mid-way with an error event the client raises, sending none of the blocked text", async () => {
    gw.bind([{ id: "stop-word", point: "model.chat.chunk", config: { mode: "block-on", needle: "BAD" } }]);
    const events: Event[] = [];
    const err = await failure((async () => { for await (const e of await stream("some text then BAD and more")) events.push(e); })());
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err).toMatchObject({ code: "content.blocked", error: { sluice_code: "HOOK_BLOCKED" } });
    const text = events.flatMap((e) => (e.type === "response.output_text.delta" ? [e.delta] : [])).join("");
    expect(answerOf("some text then BAD and more").startsWith(text)).toBe(true);
    expect(text).not.toContain("BAD");
    expect(events.some((e) => e.type === "response.completed")).toBe(false);
  });

  it("returns function calls as function_call items, and a function_call_output round-trips to the upstream as a tool message", async () => {
    gw.bind([]);
    const first = await gw.client.responses.create({ model: "m1", input: "weather in Paris?", tools });
    expect(first.output).toEqual([{ id: expect.stringMatching(/^fc_/), type: "function_call", status: "completed", call_id: "call_1", name: "weather", arguments: TOOL_ARGUMENTS.join("") }]);
    expect(gw.stub.bodies.at(-1)?.tools).toEqual([{ type: "function", function: { name: "weather", description: "Weather in a city", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: false } }]);
    const call = first.output[0] as OpenAI.Responses.ResponseFunctionToolCall;
    const second = await gw.client.responses.create({
      model: "m1", tools,
      input: [{ role: "user", content: "weather in Paris?" }, { type: "function_call", call_id: call.call_id, name: call.name, arguments: call.arguments }, { type: "function_call_output", call_id: "call_1", output: "sunny" }],
    });
    expect(second.output_text).toBe("tool said: sunny");
    expect(gw.stub.bodies.at(-1)?.messages).toEqual([
      { role: "user", content: "weather in Paris?" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "weather", arguments: TOOL_ARGUMENTS.join("") } }] },
      { role: "tool", tool_call_id: "call_1", content: "sunny" },
    ]);
  });

  it("streams function call arguments as the upstream sent them, then the whole call", async () => {
    gw.bind([{ id: "tagger", point: "model.chat.chunk", config: { mode: "continue" } }]);
    const { events, completed, types } = await collect(await stream("weather?", { tools }));
    const added = events.find((e) => e.type === "response.output_item.added");
    expect(added).toMatchObject({ output_index: 0, item: { type: "function_call", call_id: "call_1", name: "weather", arguments: "", status: "in_progress" } });
    expect(events.flatMap((e) => (e.type === "response.function_call_arguments.delta" ? [e.delta] : []))).toEqual(TOOL_ARGUMENTS);
    expect(events.find((e) => e.type === "response.function_call_arguments.done")).toMatchObject({ arguments: TOOL_ARGUMENTS.join(""), name: "weather" });
    expect(types.filter((t) => t.includes("output_text"))).toEqual([]);
    expect(completed?.output).toEqual([{ id: (added as OpenAI.Responses.ResponseOutputItemAddedEvent).item.id, type: "function_call", status: "completed", call_id: "call_1", name: "weather", arguments: TOOL_ARGUMENTS.join("") }]);
  });

  it("carries the upstream's reasoning as a reasoning item before the message, streamed or not, when no hook may change the answer", async () => {
    gw.bind([{ id: "spy-before", hookRef: "spy", point: "model.chat.before" }]);
    const r = await gw.client.responses.create({ model: "m1", input: "[think] hello" });
    expect(r.output.map((i) => i.type)).toEqual(["reasoning", "message"]);
    expect(r.output[0]).toEqual({ id: expect.stringMatching(/^rs_/), type: "reasoning", summary: [{ type: "summary_text", text: REASONING.join("") }] });
    const { events, types, completed } = await collect(await stream("[think] hello"));
    expect(events.flatMap((e) => (e.type === "response.reasoning_summary_text.delta" ? [e.delta] : [])).join("")).toBe(REASONING.join(""));
    expect(types.indexOf("response.reasoning_summary_text.done")).toBeLessThan(types.indexOf("response.output_text.delta"));
    expect(completed?.output.map((i) => i.type)).toEqual(["reasoning", "message"]);
  });

  it("withholds reasoning text, which hooks cannot see, when a hook may change the answer: the item goes out without its summary", async () => {
    for (const point of ["model.chat.after", "model.chat.chunk"] as const) {
      gw.bind([{ id: "pii", hookRef: "pii-redact@1.0.0", point }]);
      const r = await gw.client.responses.create({ model: "m1", input: "[think] hello" });
      expect(r.output[0]).toEqual({ id: expect.stringMatching(/^rs_/), type: "reasoning", summary: [] });
      const { events, completed } = await collect(await stream("[think] hello"));
      expect(JSON.stringify(events)).not.toContain("greets");
      expect(completed?.output.map((i) => i.type)).toEqual(["message", "reasoning"]);
    }
  });

  it("answers a length stop as an incomplete response, streamed or not", async () => {
    gw.bind([]);
    const r = await gw.client.responses.create({ model: "m1", input: "[long] go on" });
    expect(r).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
    const { completed, types } = await collect(await stream("[long] go on"));
    expect(types.at(-1)).toBe("response.incomplete");
    expect(completed).toMatchObject({ status: "incomplete", incomplete_details: { reason: "max_output_tokens" } });
  });

  it("answers 502 UPSTREAM_FAILED when the upstream errors, streamed or not", async () => {
    gw.bind([]);
    for (const s of [false, true]) {
      const err = await failure(gw.client.responses.create({ model: "m1", input: "[fail]", stream: s }));
      expect(err).toBeInstanceOf(OpenAI.InternalServerError);
      expect(err).toMatchObject({ status: 502, code: "UPSTREAM_FAILED" });
    }
  });

  it("a client that disconnects cancels the upstream request, streamed or not, and mid-stream", async () => {
    gw.bind([]);
    for (const s of [false, true]) {
      const cancelled = gw.stub.cancelled;
      const calls = gw.stub.chatCalls;
      const controller = new AbortController();
      const pending = failure(gw.client.responses.create({ model: "m1", input: "[hang]", stream: s }, { signal: controller.signal, timeout: 10_000 }));
      await until(() => gw.stub.chatCalls === calls + 1);
      controller.abort();
      expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
      expect(await until(() => gw.stub.cancelled === cancelled + 1, 250)).toBe(true);
    }
    const cancelled = gw.stub.cancelled;
    const events = await stream("[stall]");
    // The openai client ends an aborted stream's iteration quietly.
    for await (const e of events) if (e.type === "response.output_text.delta") events.controller.abort();
    expect(await until(() => gw.stub.cancelled === cancelled + 1, 250)).toBe(true);
  });

  it("refuses with 400 and the parameter what a chat upstream cannot do: stored responses, item references", async () => {
    gw.bind([]);
    const calls = gw.stub.chatCalls;
    const cases: [Record<string, unknown>, string][] = [
      [{ previous_response_id: "resp_1", input: "hi" }, "previous_response_id"],
      [{ input: [{ role: "user", content: "hi" }, { type: "item_reference", id: "msg_1" }] }, "input[1]"],
      [{ input: [] }, "input"],
      [{ input: [{ role: "user", content: [{ type: "input_text" }] }] }, "input[0].content[0].text"],
    ];
    for (const [body, param] of cases) {
      const err = await failure(gw.client.responses.create({ model: "m1", ...body } as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming));
      expect({ param, status: err.status, code: err.code, got: err.param }).toEqual({ param, status: 400, code: "REQUEST_INVALID", got: param });
    }
    expect(gw.stub.chatCalls).toBe(calls);
  });
});
