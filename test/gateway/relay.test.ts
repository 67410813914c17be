/** Relay integrity: what the client gets is what the upstream and the after hooks really said, seen by the official openai client. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { answerOf } from "./upstream-stub.js";
import { startGateway, type GatewayUnderTest } from "./setup.js";

let gw: GatewayUnderTest;
beforeAll(async () => { gw = await startGateway(); });
afterAll(() => gw.close());

async function collect(stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>) {
  const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
  for await (const c of stream) chunks.push(c);
  return { chunks, text: chunks.map((c) => c.choices[0]?.delta.content ?? "").join("") };
}
const failure = (p: Promise<unknown>) => p.then(() => { throw new Error("expected a failure"); }, (e) => e);
const streamed = (content: string, client = gw.client) => client.chat.completions.create({ model: "m1", messages: [{ role: "user", content }], stream: true });

describe("gateway relay integrity", () => {
  it("an upstream stream that ends without finish_reason or [DONE] reaches the client as an error event, never as a clean stop", async () => {
    gw.bind([]);
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    const err = await failure((async () => { for await (const c of await streamed("[cut] half an answer")) chunks.push(c); })());
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err).toMatchObject({ code: "UPSTREAM_FAILED", error: { sluice_code: "UPSTREAM_FAILED" } });
    expect(err.message).toMatch(/ended without a finish_reason or \[DONE\]/);
    expect(chunks.some((c) => c.choices[0]?.finish_reason)).toBe(false);
  });

  it("a plain JSON answer to a stream: true request is relayed as a proper stream", async () => {
    gw.bind([]);
    const { text, chunks } = await collect(await streamed("[json] plain please"));
    expect(text).toBe(answerOf("[json] plain please"));
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("stop");
  });

  it("HOOK_FAILED carries x-should-retry: false, so a default openai client calls the upstream once", async () => {
    gw.bind([{ id: "trap", point: "model.chat.after", failurePolicy: "fail-closed", config: { mode: "abort" } }]);
    const calls = gw.stub.chatCalls;
    const retrying = new OpenAI({ apiKey: gw.key.key, baseURL: `${gw.url}/v1` });
    const err = await failure(retrying.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "hi" }] }));
    expect(err).toMatchObject({ status: 502, error: { sluice_code: "HOOK_FAILED" } });
    expect(err.headers?.get?.("x-should-retry") ?? err.headers?.["x-should-retry"]).toBe("false");
    expect(gw.stub.chatCalls).toBe(calls + 1);
  });

  it("a retryable upstream failure does not carry x-should-retry: false", async () => {
    gw.bind([]);
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST", headers: { authorization: `Bearer ${gw.key.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "m1", messages: [{ role: "user", content: "[fail]" }] }),
    });
    expect(res.status).toBe(502);
    expect(res.headers.get("x-should-retry")).toBeNull();
  });

  it("a phone number split across streamed chunks never reaches the client when pii-redact is bound at model.chat.after", async () => {
    gw.bind([{ id: "pii", hookRef: "pii-redact@1.0.0", point: "model.chat.after" }]);
    const { text, chunks } = await collect(await streamed("call +1 (555) 123-4567"));
    expect(text).toBe(answerOf("call [phone]"));
    expect(chunks.some((c) => /\d/.test(c.choices[0]?.delta.content ?? ""))).toBe(false);
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe("stop");
  });

  it("a streamed answer is cached by response-cache: two identical streamed prompts call the upstream once", async () => {
    gw.bind([
      { id: "cache-before", hookRef: "response-cache@1.1.0", point: "model.chat.before" },
      { id: "cache-after", hookRef: "response-cache@1.1.0", point: "model.chat.after" },
    ]);
    const calls = gw.stub.chatCalls;
    const first = await collect(await streamed("stream and cache me"));
    const second = await collect(await streamed("stream and cache me"));
    expect(gw.stub.chatCalls).toBe(calls + 1);
    expect(second.text).toBe(first.text);
    expect(first.text).toBe(answerOf("stream and cache me"));
  });
});
