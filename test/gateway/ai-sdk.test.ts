/** The AI SDK's default OpenAI provider (which calls /v1/responses) through the gateway, with hooks applied. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, jsonSchema, streamText, tool } from "ai";
import { answerOf, TOOL_ARGUMENTS } from "./upstream-stub.js";
import { startGateway, type GatewayUnderTest } from "./setup.js";

let gw: GatewayUnderTest;
let model: ReturnType<ReturnType<typeof createOpenAI>>;
const paths: string[] = [];
beforeAll(async () => {
  gw = await startGateway();
  const recording: typeof fetch = (url, init) => { paths.push(new URL(String(url)).pathname); return fetch(url, init); };
  model = createOpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key.key, fetch: recording })("m1");
});
afterAll(() => gw.close());

describe("the AI SDK's default OpenAI provider against the gateway", () => {
  it("generateText goes through /v1/responses and the chat hooks", async () => {
    gw.bind([{ id: "suffix", point: "model.chat.after", config: { mode: "append", tag: " [checked]" } }]);
    const calls = gw.stub.chatCalls;
    const r = await generateText({ model, system: "be brief", prompt: "hi", maxRetries: 0 });
    expect(r.text).toBe(`${answerOf("hi")} [checked]`);
    expect(r.finishReason).toBe("stop");
    expect(r.usage).toMatchObject({ inputTokens: 2, outputTokens: 7, totalTokens: 9 });
    expect(gw.stub.chatCalls).toBe(calls + 1);
    expect(paths).toEqual(["/v1/responses"]);
    expect(gw.stub.bodies.at(-1)?.messages).toEqual([{ role: "system", content: "be brief" }, { role: "user", content: "hi" }]);
  });

  it("streamText relays the text as redacted by a chunk hook, never a piece of the pattern", async () => {
    gw.bind([{ id: "pii", hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" }]);
    const r = streamText({ model, prompt: "mail alice@example.com now", maxRetries: 0 });
    const parts: string[] = [];
    for await (const p of r.textStream) parts.push(p);
    expect(parts.join("")).toBe(answerOf("mail [email] now"));
    expect(parts.some((p) => /alic|@ex|ample/.test(p))).toBe(false);
    expect(await r.finishReason).toBe("stop");
  });

  it("generateText and streamText read a function call the upstream made", async () => {
    gw.bind([]);
    const tools = { weather: tool({ description: "Weather in a city", inputSchema: jsonSchema<{ city: string }>({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }) }) };
    const r = await generateText({ model, prompt: "weather in Paris?", tools, maxRetries: 0 });
    expect(r.toolCalls).toMatchObject([{ toolCallId: "call_1", toolName: "weather", input: JSON.parse(TOOL_ARGUMENTS.join("")) }]);
    const s = streamText({ model, prompt: "weather in Paris?", tools, maxRetries: 0 });
    expect(await s.toolCalls).toMatchObject([{ toolCallId: "call_1", toolName: "weather", input: { city: "Paris" } }]);
  });

  it("a rejected prompt fails with the hook's reason", async () => {
    gw.bind([{ id: "guard", hookRef: "prompt-guard@1.0.0", point: "model.chat.before", config: { deny: ["salary"] } }]);
    const err = await generateText({ model, prompt: "the CEO's salary?", maxRetries: 0 }).then(() => null, (e) => e);
    expect(err).toMatchObject({ statusCode: 403, message: expect.stringMatching(/deny pattern 0/) });
  });
});
