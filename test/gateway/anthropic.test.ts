/**
 * The gateway's Anthropic Messages API seen by the official @anthropic-ai/sdk, against an
 * Anthropic stub given without its /v1: the request goes upstream as sent, events come back
 * in order and intact, and the hooks judge and redact as they do on chat completions.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ServerResponse } from "node:http";
import Anthropic from "@anthropic-ai/sdk";
import type { RequestEnvelope } from "../../abi/envelope.js";
import { createMemoryRecords } from "../../host/index.js";
import { gatedSource } from "../helpers/gated-source.js";
import { REDACTED, SIGNATURE, THINKING } from "./anthropic-stub.js";
import { startGateway, type GatewayUnderTest } from "./setup.js";
import { until } from "../helpers/until.js";

const records = createMemoryRecords();
let gw: GatewayUnderTest;
let client: Anthropic;
const seen: RequestEnvelope[] = [];
beforeAll(async () => {
  gw = await startGateway({ protocols: true, records, timeoutMs: 5_000 });
  client = gw.anthropic!.client;
  gw.host.registerHook("spy", (req) => { seen.push(req); return { kind: "continue" }; });
});
afterAll(() => gw.close());
afterEach(() => { stub().handle = undefined; });

const stub = () => gw.anthropic!.stub;
function answerJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

const WEATHER = { name: "get_weather", description: "Weather of a city", input_schema: { type: "object" as const, properties: { city: { type: "string" } }, required: ["city"] } };

/** A conversation shaped as Claude Code sends one: system blocks, a tool round trip, and a system message in the middle. */
const CONVERSATION = {
  model: "claude-test",
  max_tokens: 64000,
  system: [{ type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } }, { type: "text", text: "Be brief." }],
  messages: [
    { role: "user", content: "weather in Paris?" },
    { role: "assistant", content: [{ type: "text", text: "Let me check." }, { type: "tool_use", id: "toolu_00", name: "get_weather", input: { city: "Paris" } }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_00", content: "sunny, 21 C" }] },
    { role: "system", content: "<hook-context>the user prefers Celsius</hook-context>" },
    { role: "user", content: [{ type: "text", text: "and tomorrow?" }] },
  ],
  tools: [WEATHER],
  temperature: 0.3,
  top_k: 5,
  metadata: { user_id: "u1" },
  context_management: { edits: [] },
} as const;

describe("gateway /v1/messages with the Anthropic SDK", () => {
  it("answers messages.create with the upstream's message, passing anthropic-version and anthropic-beta on with the upstream's own key, never the client's", async () => {
    gw.bind([]);
    const m = await client.messages.create({ model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: "hello" }] }, { headers: { "anthropic-version": "2023-06-01", "anthropic-beta": "context-management-2025-06-27,fine-grained-tool-streaming-2025-05-14" } });
    expect(m).toMatchObject({ id: "msg_stub", model: "claude-test-upstream", content: [{ type: "text", text: "You said: hello" }], stop_reason: "end_turn" });
    expect(stub().paths.at(-1)).toBe("/v1/messages");
    const headers = stub().headers.at(-1)!;
    expect(headers["x-api-key"]).toBe("sk-ant-upstream-secret");
    expect(headers["anthropic-version"]).toBe("2023-06-01");
    expect(headers["anthropic-beta"]).toBe("context-management-2025-06-27,fine-grained-tool-streaming-2025-05-14");
    expect(headers.authorization).toBeUndefined();
    expect(JSON.stringify(headers)).not.toContain(gw.key.key);
  });

  it("shows model.chat.before the system blocks, tool results, the mid-conversation system message, tools and sampling params, and forwards the body as sent", async () => {
    seen.length = 0;
    gw.bind([{ id: "spy", hookRef: "spy", point: "model.chat.before" }]);
    const res = await fetch(`${gw.url}/v1/messages?beta=true`, { method: "POST", headers: { "x-api-key": gw.key.key, "anthropic-version": "2023-06-01", "content-type": "application/json" }, body: JSON.stringify(CONVERSATION) });
    expect(res.status).toBe(200);
    expect(stub().bodies.at(-1)).toEqual(CONVERSATION);
    expect(seen[0]?.payload).toEqual({
      model: "claude-test", purpose: "action", stream: false,
      messages: [
        { role: "system", content: [{ type: "text", text: "You are Claude Code." }, { type: "text", text: "Be brief." }] },
        { role: "user", content: "weather in Paris?" },
        { role: "assistant", content: [{ type: "text", text: "Let me check." }, { type: "tool_use" }], tool_calls: [{ id: "toolu_00", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } }] },
        { role: "tool", tool_call_id: "toolu_00", content: "sunny, 21 C" },
        { role: "user", content: [{ type: "tool_result" }] },
        { role: "system", content: "<hook-context>the user prefers Celsius</hook-context>" },
        { role: "user", content: [{ type: "text", text: "and tomorrow?" }] },
      ],
      tools: [{ name: "get_weather", description: "Weather of a city", parameters: WEATHER.input_schema }],
      params: { max_tokens: 64000, temperature: 0.3 },
    });
  });

  it("writes what a before hook changed back in its place: the system prompt, a tool result, a param", async () => {
    gw.bind([
      // The in-process twin sees the ABI 1.1 view (a 1.0 guest sees each text part as a message of its own).
      { id: "system", hookRef: "contract", point: "model.chat.before", priority: 1, config: { mode: "patch", path: "/messages/0/content", value: "rewritten system" } },
      { id: "tool", hookRef: "contract", point: "model.chat.before", priority: 2, config: { mode: "patch", path: "/messages/3/content", value: "[redacted result]" } },
      { id: "temp", hookRef: "contract", point: "model.chat.before", priority: 3, config: { mode: "patch", path: "/params/temperature", value: 0 } },
    ]);
    await client.messages.create({ ...CONVERSATION, max_tokens: 1000 } as unknown as Anthropic.MessageCreateParamsNonStreaming);
    const sent = stub().bodies.at(-1)!;
    expect(sent.system).toBe("rewritten system");
    expect(sent.messages[2]).toEqual({ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_00", content: "[redacted result]" }] });
    expect(sent.temperature).toBe(0);
    expect({ ...sent, system: CONVERSATION.system, messages: CONVERSATION.messages, temperature: 0.3 }).toEqual({ ...CONVERSATION, max_tokens: 1000 });
  });

  it("relays a streamed answer's events byte for byte when no hook changes them: ping, thinking with its signature, redacted thinking, text, tool input", async () => {
    gw.bind([{ id: "spy", hookRef: "spy", point: "model.chat.chunk" }]);
    const res = await fetch(`${gw.url}/v1/messages?beta=true`, {
      method: "POST", headers: { authorization: `Bearer ${gw.key.key}`, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ model: "claude-test", max_tokens: 1000, stream: true, thinking: { type: "enabled", budget_tokens: 500 }, tools: [WEATHER], messages: [{ role: "user", content: "weather?" }] }),
    });
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(await res.text()).toBe(stub().streams.at(-1));
  });

  it("streams thinking and a tool call to messages.stream, which assembles the message", async () => {
    gw.bind([]);
    const stream = client.messages.stream({ model: "claude-test", max_tokens: 1000, thinking: { type: "enabled", budget_tokens: 500 }, tools: [WEATHER], messages: [{ role: "user", content: "weather?" }] });
    const thinking: string[] = [];
    stream.on("thinking", (delta) => thinking.push(delta));
    const m = await stream.finalMessage();
    expect(thinking).toEqual(THINKING);
    expect(m.content).toEqual([
      { type: "thinking", thinking: THINKING.join(""), signature: SIGNATURE },
      { type: "redacted_thinking", data: REDACTED },
      { type: "text", text: "Let me check.", citations: null },
      { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } },
    ].map((b) => (b.type === "text" ? expect.objectContaining({ type: "text", text: "Let me check." }) : b)));
    expect(m.stop_reason).toBe("tool_use");
  });

  it("answers a tool result with messages.create, the tool_use block intact", async () => {
    gw.bind([{ id: "pii", hookRef: "pii-redact@1.0.0", point: "model.chat.after" }]);
    const m = await client.messages.create({ model: "claude-test", max_tokens: 100, tools: [WEATHER], messages: [{ role: "user", content: "weather?" }] });
    expect(m.content).toEqual([{ type: "text", text: "Let me check." }, { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } }]);
    const next = await client.messages.create({ model: "claude-test", max_tokens: 100, tools: [WEATHER], messages: [{ role: "user", content: "weather?" }, { role: "assistant", content: m.content }, { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01", content: "sunny" }] }] });
    expect(next.content).toEqual([{ type: "text", text: "tool said: sunny" }]);
  });

  it("redacts the streamed text with pii-redact, the first text reaching the client before the upstream sends the rest", async () => {
    gw.bind([{ id: "pii", hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    const gate = gatedSource();
    stub().gate = gate;
    const stream = client.messages.stream({ model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: "mail alice.smith@example.com [gate]" }] });
    const texts: string[] = [];
    stream.on("text", (t) => { texts.push(t); gate.read(t); });
    const m = await stream.finalMessage();
    expect(gate.order).toEqual(["consumer read", "source sent the rest"]);
    expect(texts.join("")).toBe("You said: mail [email] [gate]");
    expect(m.content).toEqual([expect.objectContaining({ type: "text", text: "You said: mail [email] [gate]" })]);
    for (const t of texts) for (const raw of ["alice", "smith", "exam", "@"]) expect(t).not.toContain(raw);
  });

  it("keeps the text pii-redact held at a block's end inside that block, before the tool_use that follows it", async () => {
    gw.bind([{ id: "pii", hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    // Both answers end in a word pii-redact holds until the stream ends ("today", "check.").
    const plain = await client.messages.stream({ model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: "mail alice.smith@example.com today" }] }).finalMessage();
    expect(plain.content).toEqual([expect.objectContaining({ type: "text", text: "You said: mail [email] today" })]);
    const withTool = await client.messages.stream({ model: "claude-test", max_tokens: 100, tools: [WEATHER], messages: [{ role: "user", content: "weather?" }] }).finalMessage();
    expect(withTool.content).toEqual([expect.objectContaining({ type: "text", text: "Let me check." }), { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } }]);
  });

  it("shows the client an after hook's rewrite of a held stream, and of a whole message", async () => {
    gw.bind([{ id: "suffix", point: "model.chat.after", config: { mode: "append", tag: " [checked]" } }]);
    const streamed = await client.messages.stream({ model: "claude-test", max_tokens: 100, tools: [WEATHER], messages: [{ role: "user", content: "weather?" }] }).finalMessage();
    expect(streamed.content).toEqual([expect.objectContaining({ type: "text", text: "Let me check. [checked]" }), { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } }]);
    const whole = await client.messages.create({ model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: "hi" }] });
    expect(whole.content).toEqual([{ type: "text", text: "You said: hi [checked]" }]);
  });

  it("answers a hook's short circuit as an Anthropic message, streamed and not, without calling the upstream", async () => {
    gw.bind([{ id: "cached", point: "model.chat.before", config: { mode: "short_circuit", result: { content: "from the cache", finish_reason: "stop", usage: { input_tokens: 1, output_tokens: 3 } } } }]);
    const calls = stub().bodies.length;
    const whole = await client.messages.create({ model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: "again" }] });
    expect(whole).toMatchObject({ type: "message", role: "assistant", model: "claude-test", content: [{ type: "text", text: "from the cache" }], stop_reason: "end_turn", usage: { input_tokens: 1, output_tokens: 3 } });
    const streamed = await client.messages.stream({ model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: "again" }] }).finalMessage();
    expect(streamed).toMatchObject({ content: [expect.objectContaining({ type: "text", text: "from the cache" })], stop_reason: "end_turn", usage: { output_tokens: 3 } });
    expect(stub().bodies.length).toBe(calls);
  });

  it("refuses a prompt prompt-guard rejects with an Anthropic error the SDK raises, without calling the upstream", async () => {
    gw.bind([{ id: "guard", hookRef: "prompt-guard@1.0.0", point: "model.chat.before", config: { deny: ["salary"] } }]);
    const calls = stub().bodies.length;
    for (const call of [
      () => client.messages.create({ model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: "what is the CEO's salary?" }] }),
      () => client.messages.stream({ model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: "what is the CEO's salary?" }] }).finalMessage(),
    ]) {
      const err = await call().then(() => null, (e) => e);
      expect(err).toBeInstanceOf(Anthropic.PermissionDeniedError);
      expect(err).toMatchObject({ status: 403, error: { type: "error", error: { type: "permission_error", message: expect.stringMatching(/deny pattern 0/), sluice_code: "HOOK_REJECTED" } } });
    }
    expect(stub().bodies.length).toBe(calls);
  });

  it("answers a wrong key with Anthropic's 401, which the SDK raises as an AuthenticationError", async () => {
    const wrong = new Anthropic({ apiKey: "sk-sluice-wrong", baseURL: gw.url, maxRetries: 0 });
    const err = await wrong.messages.create({ model: "claude-test", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }).then(() => null, (e) => e);
    expect(err).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(err).toMatchObject({ status: 401, error: { type: "error", error: { type: "authentication_error" } } });
  });

  it("ends a stream the upstream breaks with an error event the SDK raises, of the upstream's own error type", async () => {
    gw.bind([]);
    const err = await client.messages.stream({ model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: "long story [midfail]" }] }).finalMessage().then(() => null, (e) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(String(err.message)).toMatch(/overloaded_error/);
    // The upstream's own type, which Anthropic clients act on (Claude Code retries an overloaded stream).
    expect(err.error).toMatchObject({ type: "error", error: { type: "overloaded_error", sluice_code: "UPSTREAM_FAILED" } });
  });

  it("records a streamed Messages call as it records a chat completion, named in its answer's header", async () => {
    gw.bind([]);
    const { response } = await client.messages.create({ model: "claude-test", max_tokens: 100, stream: true, messages: [{ role: "user", content: "hello" }] }).withResponse();
    const id = response.headers.get("x-sluice-operation-id");
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await records.get(id!)).toMatchObject({ phase: "finished", realStatus: "succeeded", outcome: "succeeded", identity: { operation: "chat", ctx: { spaceId: "space-a", actorId: gw.key.id } } });
  });

  it("forwards count_tokens, and answers the HEAD / probe Claude Code sends before its first call", async () => {
    const counted = await client.messages.countTokens({ model: "claude-test", messages: [{ role: "user", content: "hello" }] });
    expect(counted.input_tokens).toBe(JSON.stringify([{ role: "user", content: "hello" }]).length);
    expect(stub().paths.at(-1)).toBe("/v1/messages/count_tokens");
    expect((await fetch(`${gw.url}/`, { method: "HEAD" })).status).toBe(200);
  });

  it("relays models.list and models.retrieve to the upstream with its own key, the query passed on", async () => {
    const model = { type: "model", id: "claude-test", display_name: "Claude Test", created_at: "2026-01-01T00:00:00Z" };
    stub().handle = (req, _body, res) => answerJson(res, 200, req.url!.startsWith("/v1/models?") ? { data: [model], has_more: false, first_id: "claude-test", last_id: "claude-test" } : model);
    const listed = [];
    for await (const m of client.models.list({ limit: 5 })) listed.push(m);
    expect(listed).toEqual([model]);
    expect(stub().paths.at(-1)).toBe("/v1/models?limit=5");
    const headers = stub().headers.at(-1)!;
    expect(headers["x-api-key"]).toBe("sk-ant-upstream-secret");
    expect(headers["anthropic-version"]).toBeDefined();
    expect(JSON.stringify(headers)).not.toContain(gw.key.key);
    expect(await client.models.retrieve("claude-test")).toEqual(model);
    expect(stub().paths.at(-1)).toBe("/v1/models/claude-test");
    // An OpenAI client asks the same path, without anthropic-version: not this route's.
    const openai = await gw.client.models.list().then(() => null, (e) => e);
    expect(openai).toMatchObject({ status: 404, code: "ROUTE_NOT_FOUND", type: "not_found_error" });
    expect(stub().paths.at(-1)).toBe("/v1/models/claude-test");
  });

  it("answers an Anthropic endpoint the gateway does not serve with an Anthropic 404 the SDK raises as a NotFoundError", async () => {
    for (const call of [() => client.messages.batches.list(), () => client.beta.files.list(), () => client.beta.skills.list()] as (() => Promise<unknown>)[]) {
      const err = await Promise.resolve().then(call).then(() => null, (e) => e);
      expect(err).toBeInstanceOf(Anthropic.NotFoundError);
      expect(err.error).toMatchObject({ type: "error", error: { type: "not_found_error", sluice_code: "ROUTE_NOT_FOUND", message: expect.stringContaining("POST /v1/messages") } });
    }
  });

  it("relays the upstream's 529 overloaded_error as a 529 the SDK may retry, streamed and not, as Claude Code needs it to fall back to another model", async () => {
    gw.bind([]);
    stub().handle = (_req, _body, res) => answerJson(res, 529, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    for (const call of [
      () => client.messages.create({ model: "claude-test", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }).withResponse(),
      () => client.messages.create({ model: "claude-test", max_tokens: 10, stream: true, messages: [{ role: "user", content: "hi" }] }).withResponse(),
    ]) {
      const err = await call().then(() => null, (e) => e);
      expect(err).toBeInstanceOf(Anthropic.InternalServerError);
      expect(err).toMatchObject({ status: 529, error: { type: "error", error: { type: "overloaded_error", message: "Overloaded", sluice_code: "UPSTREAM_FAILED" } } });
      expect(err.headers.get("x-should-retry")).toBeNull();
    }
  });

  it("relays the upstream's 400 with its type and message, which the SDK raises as a BadRequestError not to retry", async () => {
    gw.bind([]);
    stub().handle = (_req, _body, res) => answerJson(res, 400, { type: "error", error: { type: "invalid_request_error", message: "messages.1.content.0.image.source.base64: invalid base64 data" } });
    const err = await client.messages.create({ model: "claude-test", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }).then(() => null, (e) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    expect(err).toMatchObject({ status: 400, error: { type: "error", error: { type: "invalid_request_error", message: "messages.1.content.0.image.source.base64: invalid base64 data", sluice_code: "UPSTREAM_FAILED" } } });
    expect(err.headers.get("x-should-retry")).toBe("false");
  });

  it("answers a short circuit's finish reason in Anthropic's own terms (max_tokens, tool_use, refusal), streamed and not", async () => {
    for (const [finish, stop] of [["length", "max_tokens"], ["tool_calls", "tool_use"], ["content_filter", "refusal"]] as const) {
      gw.bind([{ id: "cached", point: "model.chat.before", config: { mode: "short_circuit", result: { content: "from the cache", finish_reason: finish, usage: { input_tokens: 1, output_tokens: 3 } } } }]);
      const whole = await client.messages.create({ model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: "again" }] });
      const streamed = await client.messages.stream({ model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: "again" }] }).finalMessage();
      expect([whole.stop_reason, streamed.stop_reason]).toEqual([stop, stop]);
    }
  });

  it("cancels the upstream stream when the client aborts messages.stream mid-way, and records the call as finished", async () => {
    gw.bind([]);
    let upstreamClosed = false;
    stub().handle = (_req, _body, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.on("close", () => { upstreamClosed = true; });
      const send = (data: Record<string, unknown>) => res.write(`event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`);
      send({ type: "message_start", message: { id: "msg_slow", type: "message", role: "assistant", model: "claude-test", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } } });
      send({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
      send({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "the start of a long answer" } });
    };
    const stream = client.messages.stream({ model: "claude-test", max_tokens: 100, messages: [{ role: "user", content: "tell me a long story" }] });
    stream.on("text", () => stream.abort());
    expect(await stream.finalMessage().then(() => null, (e) => e)).toBeInstanceOf(Anthropic.APIUserAbortError);
    const id = (await stream.withResponse()).response.headers.get("x-sluice-operation-id");
    expect(await until(() => upstreamClosed)).toBe(true);
    expect(await until(async () => (await records.get(id!))?.phase === "finished")).toBe(true);
  });

  it("shows model.chat.before the tools Anthropic defines (web search, bash, text editor) among the tools, so a policy sees every tool the model may use, and forwards them as sent", async () => {
    seen.length = 0;
    gw.bind([{ id: "spy", hookRef: "spy", point: "model.chat.before" }]);
    const tools = [WEATHER, { type: "web_search_20250305", name: "web_search", max_uses: 3 }, { type: "bash_20250124", name: "bash" }, { type: "text_editor_20250728", name: "str_replace_based_edit_tool" }];
    await client.messages.create({ model: "claude-test", max_tokens: 100, tools: tools as Anthropic.ToolUnion[], messages: [{ role: "user", content: "hi" }] });
    expect((seen[0]?.payload as { tools: unknown[] }).tools).toEqual([
      { name: "get_weather", description: "Weather of a city", parameters: WEATHER.input_schema },
      { name: "web_search", description: "an Anthropic-defined tool of type web_search_20250305", parameters: { type: "object", properties: {} } },
      { name: "bash", description: "an Anthropic-defined tool of type bash_20250124", parameters: { type: "object", properties: {} } },
      { name: "str_replace_based_edit_tool", description: "an Anthropic-defined tool of type text_editor_20250728", parameters: { type: "object", properties: {} } },
    ]);
    expect(stub().bodies.at(-1)!.tools).toEqual(tools);
  });

  it("shows the hooks the stop reason in chat terms, as on chat completions, so response-cache serves a repeated prompt, streamed and not", async () => {
    seen.length = 0;
    gw.bind([
      { id: "cache-before", hookRef: "response-cache@1.0.0", point: "model.chat.before", priority: 1 },
      { id: "cache-after", hookRef: "response-cache@1.0.0", point: "model.chat.after", priority: 1 },
      { id: "spy", hookRef: "spy", point: "model.chat.after", priority: 0 },
    ]);
    const whole = () => client.messages.create({ model: "claude-test", max_tokens: 10, messages: [{ role: "user", content: "the same question" }] });
    const streamed = () => client.messages.stream({ model: "claude-test", max_tokens: 10, messages: [{ role: "user", content: "the same streamed question" }] }).finalMessage();
    for (const ask of [whole, streamed]) {
      seen.length = 0;
      const calls = stub().bodies.length;
      const first = await ask();
      expect(first.stop_reason).toBe("end_turn");
      expect((seen[0]?.payload as { finish_reason: string }).finish_reason).toBe("stop");
      const again = await ask();
      expect(again.content).toEqual(first.content.map((b) => (b.type === "text" ? expect.objectContaining({ type: "text", text: b.text }) : b)));
      expect(again.stop_reason).toBe("end_turn");
      expect(stub().bodies.length).toBe(calls + 1);
    }
  });

  it("never serves response-cache's answer to a prompt with another image", async () => {
    gw.bind([
      { id: "cache-before", hookRef: "response-cache@1.0.0", point: "model.chat.before" },
      { id: "cache-after", hookRef: "response-cache@1.0.0", point: "model.chat.after" },
    ]);
    const ask = (data: string) => client.messages.create({ model: "claude-test", max_tokens: 10, messages: [{ role: "user", content: [{ type: "text", text: "what is in this image?" }, { type: "image", source: { type: "base64", media_type: "image/png", data } }] }] });
    const calls = stub().bodies.length;
    await ask("aW1hZ2Ugb25l");
    await ask("aW1hZ2UgdHdv");
    expect(stub().bodies.length).toBe(calls + 2);
  });

  it("shows model.chat.before an image block as the image_url part hooks know from chat completions, and writes a hook's change of it back as an image block", async () => {
    seen.length = 0;
    const image = { type: "image", source: { type: "base64", media_type: "image/png", data: "aW1hZ2Ugb25l" }, cache_control: { type: "ephemeral" } };
    const linked = { type: "image", source: { type: "url", url: "https://example.com/cat.png" } };
    gw.bind([
      { id: "spy", hookRef: "spy", point: "model.chat.before", priority: 0 },
      { id: "text", hookRef: "contract", point: "model.chat.before", priority: 1, config: { mode: "patch", path: "/messages/0/content/0/text", value: "what is [redacted]?" } },
    ]);
    await client.messages.create({ model: "claude-test", max_tokens: 10, messages: [
      { role: "user", content: [{ type: "text", text: "what is bob@example.com?" }, image, linked] as Anthropic.ContentBlockParam[] },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_9", name: "screenshot", input: {} }] },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_9", content: [image] as Anthropic.ImageBlockParam[] }] },
    ] });
    const messages = (seen[0]?.payload as { messages: { content: unknown }[] }).messages;
    expect(messages[0]!.content).toEqual([
      { type: "text", text: "what is bob@example.com?" },
      { type: "image_url", image_url: { url: "data:image/png;base64,aW1hZ2Ugb25l" } },
      { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
    ]);
    expect(messages[2]!.content).toEqual([{ type: "image_url", image_url: { url: "data:image/png;base64,aW1hZ2Ugb25l" } }]);
    // The blocks beside the changed text go upstream as they came.
    expect(stub().bodies.at(-1)!.messages[0].content).toEqual([{ type: "text", text: "what is [redacted]?" }, image, linked]);

    gw.bind([{ id: "swap", hookRef: "contract", point: "model.chat.before", config: { mode: "patch", path: "/messages/0/content/1/image_url/url", value: "data:image/jpeg;base64,c3dhcHBlZA==" } }]);
    await client.messages.create({ model: "claude-test", max_tokens: 10, messages: [{ role: "user", content: [{ type: "text", text: "what is this?" }, image] as Anthropic.ContentBlockParam[] }] });
    expect(stub().bodies.at(-1)!.messages[0].content[1]).toEqual({ type: "image", source: { type: "base64", media_type: "image/jpeg", data: "c3dhcHBlZA==" }, cache_control: { type: "ephemeral" } });
  });
});
