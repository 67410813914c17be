/**
 * The gateway's Gemini API (generateContent and streamGenerateContent with alt=sse) seen by
 * the official @google/genai client (2.32, the last line that runs on Node 20), against a
 * Gemini stub given without its /v1beta: the same hook guarantees as chat completions.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ServerResponse } from "node:http";
import { Writable } from "node:stream";
import { until } from "../helpers/until.js";
import { ApiError, GoogleGenAI, type GenerateContentResponse } from "@google/genai";
import type { RequestEnvelope } from "../../abi/envelope.js";
import { createMemoryRecords } from "../../host/index.js";
import { gatedSource } from "../helpers/gated-source.js";
import { THOUGHT, THOUGHT_SIGNATURE } from "./gemini-stub.js";
import { startGateway, type GatewayUnderTest } from "./setup.js";

const records = createMemoryRecords();
let gw: GatewayUnderTest;
let ai: GoogleGenAI;
const seen: RequestEnvelope[] = [];
beforeAll(async () => {
  gw = await startGateway({ protocols: true, records, timeoutMs: 5_000 });
  ai = gw.gemini!.client;
  gw.host.registerHook("spy", (req) => { seen.push(req); return { kind: "continue" }; });
});
afterAll(() => gw.close());
afterEach(() => { stub().handle = undefined; });

const stub = () => gw.gemini!.stub;
function answerJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function answerEvents(res: ServerResponse, bodies: unknown[]): void {
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.end(bodies.map((b) => `data: ${JSON.stringify(b)}\r\n\r\n`).join(""));
}

/** The error an official client call raised, with its body parsed (ApiError's message is the body's JSON). */
async function apiError(call: () => Promise<unknown>): Promise<{ status: number; body: any }> {
  const err = await call().then(() => null, (e) => e);
  expect(err).toBeInstanceOf(ApiError);
  return { status: err.status, body: JSON.parse(String(err.message).replace(/^got status: \S+\. /, "")) };
}

const WEATHER = { name: "get_weather", description: "Weather of a city", parametersJsonSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };

async function texts(stream: AsyncGenerator<GenerateContentResponse>, onText?: (t: string) => void): Promise<{ texts: string[]; last?: GenerateContentResponse }> {
  const out: string[] = [];
  let last: GenerateContentResponse | undefined;
  for await (const r of stream) {
    const t = r.text ?? "";
    if (t !== "") { out.push(t); onText?.(t); }
    last = r;
  }
  return { texts: out, ...(last ? { last } : {}) };
}

describe("gateway Gemini API with @google/genai", () => {
  it("answers generateContent with the upstream's answer, the upstream's own key, and shows model.chat.before the system instruction, tools and params", async () => {
    seen.length = 0;
    gw.bind([{ id: "spy", hookRef: "spy", point: "model.chat.before" }]);
    const r = await ai.models.generateContent({ model: "gemini-test", contents: "hello", config: { systemInstruction: "Be brief.", temperature: 0.2, maxOutputTokens: 50 } });
    expect(r.text).toBe("You said: hello");
    expect(stub().paths.at(-1)).toBe("/v1beta/models/gemini-test:generateContent");
    expect(stub().headers.at(-1)?.["x-goog-api-key"]).toBe("gemini-upstream-secret");
    expect(JSON.stringify(stub().headers.at(-1))).not.toContain(gw.key.key);
    expect(seen[0]?.payload).toEqual({
      model: "gemini-test", purpose: "action", stream: false,
      messages: [{ role: "system", content: [{ type: "text", text: "Be brief." }] }, { role: "user", content: [{ type: "text", text: "hello" }] }],
      params: { temperature: 0.2, max_tokens: 50 },
    });
  });

  it("streams with generateContentStream, the thought and its signature and a function call intact", async () => {
    gw.bind([]);
    const stream = await ai.models.generateContentStream({ model: "gemini-test", contents: "weather?", config: { tools: [{ functionDeclarations: [WEATHER] }], thinkingConfig: { includeThoughts: true } } });
    const parts = [];
    for await (const r of stream) parts.push(...(r.candidates?.[0]?.content?.parts ?? []));
    expect(stub().paths.at(-1)).toBe("/v1beta/models/gemini-test:streamGenerateContent?alt=sse");
    expect(parts[0]).toEqual({ text: THOUGHT, thought: true });
    expect(parts.filter((p) => p.text !== undefined && !p.thought).map((p) => p.text).join("")).toBe("Let me check.");
    expect(parts.at(-1)).toEqual({ functionCall: { name: "get_weather", args: { city: "Paris" } }, thoughtSignature: THOUGHT_SIGNATURE });
  });

  it("redacts the streamed text with pii-redact, the first text reaching the client before the upstream sends the rest", async () => {
    gw.bind([{ id: "pii", hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    const gate = gatedSource();
    stub().gate = gate;
    const { texts: got } = await texts(await ai.models.generateContentStream({ model: "gemini-test", contents: "mail alice.smith@example.com [gate]" }), (t) => gate.read(t));
    expect(gate.order).toEqual(["consumer read", "source sent the rest"]);
    expect(got.join("")).toBe("You said: mail [email] [gate]");
    for (const t of got) for (const raw of ["alice", "smith", "exam", "@"]) expect(t).not.toContain(raw);
  });

  it("sends the text pii-redact held until the stream's end in the response that finishes the answer, not after it or never", async () => {
    gw.bind([{ id: "pii", hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    // The last response (" now", with finishReason) comes once the client has read "see ": it
    // lets "you " through and holds "now" until the stream ends.
    const gate = gatedSource();
    stub().gate = gate;
    const stream = await ai.models.generateContentStream({ model: "gemini-test", contents: "[last-waits] mail alice.smith@example.com, see you now" });
    let text = "";
    let finished: string | undefined;
    for await (const r of stream) {
      expect(finished, "text after the response that finished the answer").toBeUndefined();
      text += r.text ?? "";
      finished = r.candidates?.[0]?.finishReason;
      if (text.endsWith(", see ")) gate.read(text);
    }
    expect(gate.order).toEqual(["consumer read", "source sent the rest"]);
    expect(text).toBe("You said: [last-waits] mail [email], see you now");
    expect(finished).toBe("STOP");
  });

  it("shows the client an after hook's rewrite, streamed and not", async () => {
    gw.bind([{ id: "suffix", point: "model.chat.after", config: { mode: "append", tag: " [checked]" } }]);
    expect((await ai.models.generateContent({ model: "gemini-test", contents: "hi" })).text).toBe("You said: hi [checked]");
    const { texts: got } = await texts(await ai.models.generateContentStream({ model: "gemini-test", contents: "hi" }));
    expect(got.join("")).toBe("You said: hi [checked]");
  });

  it("answers a hook's short circuit as a Gemini answer, streamed and not, without calling the upstream", async () => {
    gw.bind([{ id: "cached", point: "model.chat.before", config: { mode: "short_circuit", result: { content: "from the cache", finish_reason: "stop", usage: { input_tokens: 1, output_tokens: 3 } } } }]);
    const calls = stub().bodies.length;
    const whole = await ai.models.generateContent({ model: "gemini-test", contents: "again" });
    expect(whole.text).toBe("from the cache");
    expect(whole.candidates?.[0]?.finishReason).toBe("STOP");
    const { texts: got } = await texts(await ai.models.generateContentStream({ model: "gemini-test", contents: "again" }));
    expect(got.join("")).toBe("from the cache");
    expect(stub().bodies.length).toBe(calls);
  });

  it("refuses a prompt prompt-guard rejects with a Gemini error the client raises, without calling the upstream", async () => {
    gw.bind([{ id: "guard", hookRef: "prompt-guard@1.0.0", point: "model.chat.before", config: { deny: ["salary"] } }]);
    const calls = stub().bodies.length;
    for (const call of [
      () => ai.models.generateContent({ model: "gemini-test", contents: "what is the CEO's salary?" }),
      async () => texts(await ai.models.generateContentStream({ model: "gemini-test", contents: "what is the CEO's salary?" })),
    ]) {
      const err = await call().then(() => null, (e) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err.status).toBe(403);
      expect(JSON.parse(err.message)).toMatchObject({ error: { code: 403, status: "PERMISSION_DENIED", message: expect.stringMatching(/deny pattern 0/) } });
    }
    expect(stub().bodies.length).toBe(calls);
  });

  it("answers a wrong key with the Gemini API's 401", async () => {
    const wrong = new GoogleGenAI({ apiKey: "sk-sluice-wrong", httpOptions: { baseUrl: gw.url } });
    const err = await wrong.models.generateContent({ model: "gemini-test", contents: "hi" }).then(() => null, (e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(401);
    expect(err.message).toMatch(/UNAUTHENTICATED/);
  });

  it("forwards countTokens, which Gemini CLI asks before compressing a conversation", async () => {
    const counted = await ai.models.countTokens({ model: "gemini-test", contents: "hello" });
    expect(stub().paths.at(-1)).toBe("/v1beta/models/gemini-test:countTokens");
    expect(counted.totalTokens).toBe(JSON.stringify(stub().bodies.at(-1)!.contents).length);
  });

  it("records a streamed call as it records a chat completion", async () => {
    gw.bind([]);
    const res = await fetch(`${gw.url}/v1beta/models/gemini-test:streamGenerateContent?alt=sse`, { method: "POST", headers: { "x-goog-api-key": gw.key.key, "content-type": "application/json" }, body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hello" }] }] }) });
    expect(res.status).toBe(200);
    await res.text();
    const id = res.headers.get("x-sluice-operation-id");
    expect(await records.get(id!)).toMatchObject({ phase: "finished", realStatus: "succeeded", outcome: "succeeded", identity: { operation: "chat", ctx: { spaceId: "space-a", actorId: gw.key.id } } });
  });

  it("refuses candidateCount above 1 with a Gemini 400 naming the field, since the hooks govern one candidate only", async () => {
    gw.bind([{ id: "pii", hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    const calls = stub().bodies.length;
    for (const call of [
      () => ai.models.generateContent({ model: "gemini-test", contents: "mail bob@example.com", config: { candidateCount: 2 } }),
      async () => texts(await ai.models.generateContentStream({ model: "gemini-test", contents: "mail bob@example.com", config: { candidateCount: 2 } })),
    ]) {
      const { status, body } = await apiError(call);
      expect(status).toBe(400);
      expect(body).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT", message: expect.stringContaining("generationConfig.candidateCount"), sluice_code: "REQUEST_INVALID" } });
      // The field as Google names a bad one: a BadRequest detail's field violation.
      expect(body.error.details).toEqual([{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field: "generationConfig.candidateCount", description: body.error.message }] }]);
    }
    expect(stub().bodies.length).toBe(calls);
    expect((await ai.models.generateContent({ model: "gemini-test", contents: "hi", config: { candidateCount: 1 } })).text).toBe("You said: hi");
  });

  it("answers a prompt the upstream blocked as the upstream did: no candidates, its promptFeedback, streamed and not", async () => {
    gw.bind([]);
    const blocked = { promptFeedback: { blockReason: "PROHIBITED_CONTENT" }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 }, modelVersion: "gemini-stub", responseId: "resp-blocked" };
    stub().handle = (req, _body, res) => (req.url!.includes(":streamGenerateContent") ? answerEvents(res, [blocked]) : answerJson(res, 200, blocked));
    const whole = await ai.models.generateContent({ model: "gemini-test", contents: "something prohibited" });
    expect(whole.candidates).toBeUndefined();
    expect(whole.promptFeedback?.blockReason).toBe("PROHIBITED_CONTENT");
    expect(whole.text).toBeUndefined();
    const streamed: GenerateContentResponse[] = [];
    for await (const r of await ai.models.generateContentStream({ model: "gemini-test", contents: "something prohibited" })) streamed.push(r);
    expect(streamed.map((r) => r.promptFeedback?.blockReason)).toEqual(["PROHIBITED_CONTENT"]);
  });

  it("relays models.list and models.get to the upstream with its own key, the query passed on", async () => {
    const model = { name: "models/gemini-test", displayName: "Gemini Test", supportedGenerationMethods: ["generateContent", "countTokens"] };
    stub().handle = (req, _body, res) => answerJson(res, 200, req.url!.startsWith("/v1beta/models?") ? { models: [model] } : model);
    const listed = [];
    for await (const m of await ai.models.list({ config: { pageSize: 5 } })) listed.push(m);
    expect(listed).toMatchObject([{ name: "models/gemini-test", displayName: "Gemini Test" }]);
    expect(stub().paths.at(-1)).toBe("/v1beta/models?pageSize=5");
    expect(stub().headers.at(-1)?.["x-goog-api-key"]).toBe("gemini-upstream-secret");
    expect(await ai.models.get({ model: "gemini-test" })).toMatchObject({ name: "models/gemini-test" });
    expect(stub().paths.at(-1)).toBe("/v1beta/models/gemini-test");
  });

  it("answers a Gemini endpoint the gateway does not serve with a Gemini 404 naming the routes it serves", async () => {
    // A client on the v1 API version asks paths the gateway does not serve (it serves v1beta's).
    const v1 = new GoogleGenAI({ apiKey: gw.key.key, httpOptions: { baseUrl: gw.url, apiVersion: "v1" } });
    for (const call of [() => ai.files.list(), () => ai.models.embedContent({ model: "gemini-test", contents: "hi" }), () => ai.caches.list(), () => v1.models.generateContent({ model: "gemini-test", contents: "hi" })]) {
      const { status, body } = await apiError(async () => { const r = await call(); if (Symbol.asyncIterator in Object(r)) for await (const _ of r as AsyncIterable<unknown>) { /* drain */ } });
      expect(status).toBe(404);
      expect(body).toMatchObject({ error: { code: 404, status: "NOT_FOUND", sluice_code: "ROUTE_NOT_FOUND", message: expect.stringMatching(/:generateContent.*:countTokens.*GET \/v1beta\/models/) } });
    }
  });

  it("takes the key as ?key= too, as the Gemini API's own examples send it, and never writes it to the log or the upstream", async () => {
    const lines: string[] = [];
    const logged = await startGateway({ protocols: true, timeoutMs: 5_000, logger: { level: "info", stream: new Writable({ write(chunk: Buffer, _enc, done) { lines.push(chunk.toString("utf8")); done(); } }) } });
    try {
      logged.bind([]);
      const send = (key: string) => fetch(`${logged.url}/v1beta/models/gemini-test:generateContent?key=${key}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }) });
      const ok = await send(logged.key.key);
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as { candidates: { content: { parts: { text: string }[] } }[] }).candidates[0]!.content.parts[0]!.text).toBe("You said: hi");
      expect(logged.gemini!.stub.paths.at(-1)).toBe("/v1beta/models/gemini-test:generateContent");
      const wrong = await send("sk-sluice-wrong-key-in-the-url");
      expect(wrong.status).toBe(401);
      expect(await wrong.json()).toMatchObject({ error: { code: 401, status: "UNAUTHENTICATED", sluice_code: "GATEWAY_KEY_INVALID" } });
      await until(() => lines.filter((l) => l.includes("request completed")).length >= 2);
      expect(lines.join("")).toContain("/v1beta/models/gemini-test:generateContent");
      for (const key of [logged.key.key, "sk-sluice-wrong-key-in-the-url"]) expect(lines.join("")).not.toContain(key);
    } finally {
      await logged.close();
    }
  });

  it("relays the upstream's error with its own status name, and a 429's RetryInfo (its wait, nothing of the operator's quota) as Gemini CLI reads it", async () => {
    gw.bind([]);
    stub().handle = (_req, _body, res) => answerJson(res, 400, { error: { code: 400, message: "User location is not supported for the API use.", status: "FAILED_PRECONDITION" } });
    expect(await apiError(() => ai.models.generateContent({ model: "gemini-test", contents: "hi" }))).toEqual({
      status: 400, body: { error: { code: 400, message: "User location is not supported for the API use.", status: "FAILED_PRECONDITION", sluice_code: "UPSTREAM_FAILED" } },
    });
    stub().handle = (_req, _body, res) => answerJson(res, 429, { error: { code: 429, message: "You exceeded your current quota.", status: "RESOURCE_EXHAUSTED", details: [
      { "@type": "type.googleapis.com/google.rpc.QuotaFailure", violations: [{ quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests", quotaId: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier", quotaDimensions: { location: "global", model: "gemini-test" } }] },
      { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "37s" },
    ] } });
    for (const call of [() => ai.models.generateContent({ model: "gemini-test", contents: "hi" }), async () => texts(await ai.models.generateContentStream({ model: "gemini-test", contents: "hi" }))]) {
      expect(await apiError(call)).toEqual({
        status: 429,
        body: { error: { code: 429, message: "You exceeded your current quota.", status: "RESOURCE_EXHAUSTED", details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "37s" }], sluice_code: "UPSTREAM_FAILED" } },
      });
    }
    const res = await fetch(`${gw.url}/v1beta/models/gemini-test:generateContent`, { method: "POST", headers: { "x-goog-api-key": gw.key.key, "content-type": "application/json" }, body: JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }] }) });
    expect(res.headers.get("retry-after")).toBe("37");
  });

  it("ends a stream the upstream stopped before its finishReason with an error the client raises, and records the call as failed", async () => {
    gw.bind([]);
    const piece = { candidates: [{ content: { role: "model", parts: [{ text: "the first half" }] }, index: 0 }], modelVersion: "gemini-stub" };
    stub().handle = (_req, _body, res) => answerEvents(res, [piece]);
    const got: string[] = [];
    const { status, body } = await apiError(async () => { for await (const r of await ai.models.generateContentStream({ model: "gemini-test", contents: "hi" })) got.push(r.text ?? ""); });
    expect(got).toEqual(["the first half"]);
    expect(status).toBe(502);
    expect(body).toMatchObject({ error: { code: 502, status: "INTERNAL", sluice_code: "UPSTREAM_FAILED", message: expect.stringContaining("without a finishReason") } });
    const res = await fetch(`${gw.url}/v1beta/models/gemini-test:streamGenerateContent?alt=sse`, { method: "POST", headers: { "x-goog-api-key": gw.key.key, "content-type": "application/json" }, body: JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }] }) });
    await res.text();
    expect(await records.get(res.headers.get("x-sluice-operation-id")!)).toMatchObject({ phase: "finished", realStatus: "failed" });
  });

  it("refuses streamGenerateContent without alt=sse with a Gemini 400 naming alt, rather than answer a JSON-array client with events", async () => {
    gw.bind([]);
    const calls = stub().bodies.length;
    const res = await fetch(`${gw.url}/v1beta/models/gemini-test:streamGenerateContent`, { method: "POST", headers: { "x-goog-api-key": gw.key.key, "content-type": "application/json" }, body: JSON.stringify({ contents: [{ parts: [{ text: "hi" }] }] }) });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT", sluice_code: "REQUEST_INVALID", message: expect.stringContaining("alt=sse") } });
    expect(stub().bodies.length).toBe(calls);
  });

  it("shows model.chat.before each functionResponse as the tool message of its functionCall, paired by name and order when the parts carry no id", async () => {
    seen.length = 0;
    gw.bind([{ id: "spy", hookRef: "spy", point: "model.chat.before" }]);
    await ai.models.generateContent({
      model: "gemini-test",
      contents: [
        { role: "user", parts: [{ text: "weather in Paris and Rome?" }] },
        { role: "model", parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" } } }, { functionCall: { name: "get_weather", args: { city: "Rome" } } }] },
        { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { output: "sunny" } } }, { functionResponse: { name: "get_weather", response: { output: "rain" } } }] },
        { role: "model", parts: [{ functionCall: { id: "call-7", name: "get_time", args: {} } }] },
        { role: "user", parts: [{ functionResponse: { id: "call-7", name: "get_time", response: { output: "noon" } } }] },
      ],
      config: { tools: [{ functionDeclarations: [WEATHER] }] },
    });
    const messages = (seen[0]?.payload as { messages: { role: string; content: unknown; tool_calls?: { id: string }[]; tool_call_id?: string }[] }).messages;
    const calls = messages.flatMap((m) => m.tool_calls ?? []).map((c) => c.id);
    const results = messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m.content]);
    expect(calls).toHaveLength(3);
    expect(new Set(calls).size).toBe(3);
    expect(results).toEqual([[calls[0], JSON.stringify({ output: "sunny" })], [calls[1], JSON.stringify({ output: "rain" })], ["call-7", JSON.stringify({ output: "noon" })]]);
  });

  it("answers a short circuit's finish reason in Gemini's own terms (MAX_TOKENS, STOP with its function call), streamed and not", async () => {
    for (const [result, finish] of [
      [{ content: "cut sho", finish_reason: "length", usage: { input_tokens: 1, output_tokens: 3 } }, "MAX_TOKENS"],
      [{ content: "", tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"Paris\"}" } }], finish_reason: "tool_calls", usage: { input_tokens: 1, output_tokens: 3 } }, "STOP"],
    ] as const) {
      gw.bind([{ id: "cached", point: "model.chat.before", config: { mode: "short_circuit", result } }]);
      const whole = await ai.models.generateContent({ model: "gemini-test", contents: "again" });
      const { last } = await texts(await ai.models.generateContentStream({ model: "gemini-test", contents: "again" }));
      for (const r of [whole, last!]) {
        expect(r.candidates?.[0]?.finishReason).toBe(finish);
        if (finish === "STOP") expect(r.functionCalls).toEqual([{ id: "c1", name: "get_weather", args: { city: "Paris" } }]);
      }
    }
  });

  it("keeps a text part's thoughtSignature when pii-redact holds all of that part's text for later", async () => {
    gw.bind([{ id: "pii", hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    const piece = (parts: unknown[], finish?: string) => ({ candidates: [{ content: { role: "model", parts }, index: 0, ...(finish ? { finishReason: finish } : {}) }] });
    stub().handle = (_req, _body, res) => answerEvents(res, [piece([{ text: "alice.smi", thoughtSignature: THOUGHT_SIGNATURE }]), piece([{ text: "th@example.com now" }]), piece([{ text: " ok" }], "STOP")]);
    const parts = [];
    for await (const r of await ai.models.generateContentStream({ model: "gemini-test", contents: "hi" })) parts.push(...(r.candidates?.[0]?.content?.parts ?? []));
    expect(parts.map((p) => p.text).join("")).toBe("[email] now ok");
    expect(parts.filter((p) => p.thoughtSignature !== undefined).map((p) => p.thoughtSignature)).toEqual([THOUGHT_SIGNATURE]);
  });

  it("keeps every text part's thoughtSignature when an after hook rewrites a whole answer", async () => {
    gw.bind([{ id: "suffix", point: "model.chat.after", config: { mode: "append", tag: " [checked]" } }]);
    stub().handle = (_req, _body, res) => answerJson(res, 200, { candidates: [{ content: { role: "model", parts: [{ text: "one ", thoughtSignature: "S1" }, { text: "two", thoughtSignature: "S2" }] }, finishReason: "STOP", index: 0 }] });
    const r = await ai.models.generateContent({ model: "gemini-test", contents: "hi" });
    expect(r.text).toBe("one two [checked]");
    expect(r.candidates?.[0]?.content?.parts?.map((p) => p.thoughtSignature)).toEqual(["S1", "S2"]);
  });

  it("shows model.chat.before an image as the image_url part hooks know from chat completions and every other part by its own kind (fileData, functionCall, …), and sends each upstream intact when a hook rewrites the text beside it", async () => {
    seen.length = 0;
    gw.bind([
      { id: "spy", hookRef: "spy", point: "model.chat.before", priority: 0 },
      { id: "text", hookRef: "contract", point: "model.chat.before", priority: 1, config: { mode: "patch", path: "/messages/0/content/0/text", value: "what is [redacted]?" } },
    ]);
    const image = { inlineData: { mimeType: "image/png", data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==" } };
    const file = { fileData: { mimeType: "application/pdf", fileUri: "https://generativelanguage.googleapis.com/v1beta/files/abc" } };
    await ai.models.generateContent({ model: "gemini-test", contents: [
      { role: "user", parts: [{ text: "what is bob@example.com?" }, image, file] },
      { role: "model", parts: [{ text: "a call", thought: true }, { functionCall: { name: "get_weather", args: { city: "Paris" } } }] },
      { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { output: "sunny" } } }] },
    ] });
    const messages = (seen[0]?.payload as { messages: { content: unknown }[] }).messages;
    expect(messages.map((m) => m.content)).toEqual([
      [{ type: "text", text: "what is bob@example.com?" }, { type: "image_url", image_url: { url: `data:image/png;base64,${image.inlineData.data}` } }, { type: "fileData" }],
      [{ type: "thought" }, { type: "functionCall" }],
      JSON.stringify({ output: "sunny" }),
      [{ type: "functionResponse" }],
    ]);
    expect(stub().bodies.at(-1)!.contents[0].parts).toEqual([{ text: "what is [redacted]?" }, image, file]);

    gw.bind([{ id: "swap", hookRef: "contract", point: "model.chat.before", config: { mode: "patch", path: "/messages/0/content/1/image_url/url", value: "data:image/jpeg;base64,c3dhcHBlZA==" } }]);
    await ai.models.generateContent({ model: "gemini-test", contents: [{ role: "user", parts: [{ text: "what is this?" }, image] }] });
    expect(stub().bodies.at(-1)!.contents[0].parts[1]).toEqual({ inlineData: { mimeType: "image/jpeg", data: "c3dhcHBlZA==" } });
  });

  it("cancels the upstream stream when the client aborts generateContentStream mid-way, and records the call as finished", async () => {
    gw.bind([]);
    let upstreamClosed = false;
    stub().handle = (_req, _body, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.on("close", () => { upstreamClosed = true; });
      res.write(`data: ${JSON.stringify({ candidates: [{ content: { role: "model", parts: [{ text: "the start of a long answer" }] }, index: 0 }] })}\r\n\r\n`);
    };
    const controller = new AbortController();
    const stream = await ai.models.generateContentStream({ model: "gemini-test", contents: "tell me a long story", config: { abortSignal: controller.signal } });
    const id = (await stream.next()).value?.sdkHttpResponse?.headers?.["x-sluice-operation-id"];
    controller.abort();
    await stream.next().catch(() => undefined);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await until(() => upstreamClosed)).toBe(true);
    expect(await until(async () => (await records.get(id!))?.phase === "finished")).toBe(true);
  });

  it("shows model.chat.before generationConfig's seed and penalties under the chat names a hook knows, and writes a hook's change back", async () => {
    seen.length = 0;
    gw.bind([
      { id: "spy", hookRef: "spy", point: "model.chat.before", priority: 0 },
      { id: "seed", hookRef: "contract", point: "model.chat.before", priority: 1, config: { mode: "patch", path: "/params/seed", value: 7 } },
    ]);
    await ai.models.generateContent({ model: "gemini-test", contents: "hi", config: { seed: 42, presencePenalty: 0.5, frequencyPenalty: 0.25, topK: 3 } });
    expect((seen[0]?.payload as { params: unknown }).params).toEqual({ seed: 42, presence_penalty: 0.5, frequency_penalty: 0.25 });
    expect(stub().bodies.at(-1)!.generationConfig).toEqual({ seed: 7, presencePenalty: 0.5, frequencyPenalty: 0.25, topK: 3 });
  });

  it("ends a stream with the error the upstream sent in it, its status name kept, which the client raises", async () => {
    gw.bind([]);
    stub().handle = (_req, _body, res) => answerEvents(res, [
      { candidates: [{ content: { role: "model", parts: [{ text: "the first half" }] }, index: 0 }] },
      { error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" } },
    ]);
    const { status, body } = await apiError(async () => texts(await ai.models.generateContentStream({ model: "gemini-test", contents: "hi" })));
    expect(status).toBe(502);
    expect(body).toMatchObject({ error: { code: 502, status: "UNAVAILABLE", sluice_code: "UPSTREAM_FAILED", message: expect.stringContaining("The model is overloaded") } });
  });

  it("shows model.chat.before the tools the Gemini upstream runs (Google Search, code execution, URL context) among the tools, and forwards them as sent", async () => {
    seen.length = 0;
    gw.bind([{ id: "spy", hookRef: "spy", point: "model.chat.before" }]);
    await ai.models.generateContent({ model: "gemini-test", contents: "hi", config: { tools: [{ functionDeclarations: [WEATHER] }, { googleSearch: {} }, { codeExecution: {} }, { urlContext: {} }] } });
    expect((seen[0]?.payload as { tools: unknown[] }).tools).toEqual([
      { name: "get_weather", description: "Weather of a city", parameters: WEATHER.parametersJsonSchema },
      { name: "googleSearch", description: "a Gemini-defined tool the upstream runs", parameters: { type: "object", properties: {} } },
      { name: "codeExecution", description: "a Gemini-defined tool the upstream runs", parameters: { type: "object", properties: {} } },
      { name: "urlContext", description: "a Gemini-defined tool the upstream runs", parameters: { type: "object", properties: {} } },
    ]);
    expect(stub().bodies.at(-1)!.tools).toEqual([{ functionDeclarations: [WEATHER] }, { googleSearch: {} }, { codeExecution: {} }, { urlContext: {} }]);
  });

  it("shows the after hooks the finish reason in chat terms, as on chat completions (stop, tool_calls, length), while the client gets Gemini's own", async () => {
    gw.bind([{ id: "spy", hookRef: "spy", point: "model.chat.after" }]);
    const finishes = async (config: Record<string, unknown>, contents = "hi") => {
      seen.length = 0;
      const r = await ai.models.generateContent({ model: "gemini-test", contents, config });
      return [r.candidates?.[0]?.finishReason, (seen[0]?.payload as { finish_reason: string }).finish_reason];
    };
    expect(await finishes({})).toEqual(["STOP", "stop"]);
    expect(await finishes({ tools: [{ functionDeclarations: [WEATHER] }] }, "weather?")).toEqual(["STOP", "tool_calls"]);
    stub().handle = (_req, _body, res) => answerJson(res, 200, { candidates: [{ content: { role: "model", parts: [{ text: "cut sho" }] }, finishReason: "MAX_TOKENS", index: 0 }] });
    expect(await finishes({})).toEqual(["MAX_TOKENS", "length"]);
    stub().handle = (_req, _body, res) => answerEvents(res, [{ candidates: [{ content: { role: "model", parts: [{ text: "cut sho" }] }, finishReason: "MAX_TOKENS", index: 0 }] }]);
    seen.length = 0;
    const { last } = await texts(await ai.models.generateContentStream({ model: "gemini-test", contents: "hi" }));
    expect([last?.candidates?.[0]?.finishReason, (seen[0]?.payload as { finish_reason: string }).finish_reason]).toEqual(["MAX_TOKENS", "length"]);
  });

  it("never serves response-cache's answer to a prompt with another image", async () => {
    gw.bind([
      { id: "cache-before", hookRef: "response-cache@1.0.0", point: "model.chat.before" },
      { id: "cache-after", hookRef: "response-cache@1.0.0", point: "model.chat.after" },
    ]);
    const ask = (data: string) => ai.models.generateContent({ model: "gemini-test", contents: [{ role: "user", parts: [{ text: "what is in this image?" }, { inlineData: { mimeType: "image/png", data } }] }] });
    const calls = stub().bodies.length;
    await ask("aW1hZ2Ugb25l");
    await ask("aW1hZ2UgdHdv");
    expect(stub().bodies.length).toBe(calls + 2);
  });
});
