/** The gateway against a hostile upstream and malformed clients. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type GatewayUnderTest } from "./setup.js";

let gw: GatewayUnderTest;
beforeAll(async () => { gw = await startGateway({ timeoutMs: 5_000, maxBytes: 1024 * 1024 }); });
afterAll(() => gw.close());

const ask = (content: string, stream = false) => gw.client.chat.completions.create({ model: "m1", messages: [{ role: "user", content }], stream });
const failure = (p: Promise<unknown>) => p.then(async (r) => {
  if (r && typeof (r as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function") { for await (const _ of r as AsyncIterable<unknown>) { /* drain */ } }
  throw new Error("expected a failure");
}, (e) => e);
const post = (body: unknown) => fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${gw.key.key}`, "content-type": "application/json" }, body: JSON.stringify(body) });

describe("gateway hardening", () => {
  it("stops reading an upstream answer past the size limit: UPSTREAM_TOO_LARGE, streamed or not", async () => {
    gw.bind([]);
    for (const stream of [false, true]) {
      gw.stub.hugeBytesSent = 0;
      const before = process.memoryUsage().rss;
      const err = await failure(ask("[huge]", stream));
      expect(err).toMatchObject({ status: 502, error: { sluice_code: "UPSTREAM_TOO_LARGE" } });
      // The upstream was cut off long before its 256 MiB.
      expect(gw.stub.hugeBytesSent).toBeLessThan(64 * 1024 * 1024);
      expect(process.memoryUsage().rss - before).toBeLessThan(128 * 1024 * 1024);
    }
  });

  it("never passes upstream error text that names a key to the client", async () => {
    gw.bind([]);
    const unauthorized = await failure(ask("[badkey]"));
    expect(unauthorized).toMatchObject({ status: 502, error: { sluice_code: "UPSTREAM_FAILED" } });
    expect(JSON.stringify(unauthorized.error) + unauthorized.message).not.toMatch(/sk-|\*{3}|cret/);
    const leaky = await failure(ask("[leaky]"));
    expect(leaky).toMatchObject({ status: 400, code: "context_length_exceeded", param: "messages" });
    expect(JSON.stringify(leaky.error) + leaky.message).not.toMatch(/sk-upstream-secret/);
    expect(leaky.message).toMatch(/context too long/);
  });

  it("answers malformed content with 400 REQUEST_INVALID, not 500", async () => {
    for (const content of [{}, 5, [null], [5], true]) {
      const res = await post({ model: "m1", messages: [{ role: "user", content }] });
      expect({ content, status: res.status, code: ((await res.json()) as { error: { sluice_code: string } }).error.sluice_code }).toEqual({ content, status: 400, code: "REQUEST_INVALID" });
    }
    for (const body of [
      { model: "m1", messages: [{ role: "assistant", content: null, tool_calls: [null] }] },
      { model: "m1", messages: [{ role: "user", content: "hi" }], tools: {} },
      { model: "m1", messages: [{ role: "user", content: "hi" }], tools: [null] },
      { model: "m1", messages: [{ role: "user", content: "hi" }], stop: [1] },
    ]) {
      const res = await post(body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
    }
  });

  it("accepts only application/json bodies and refuses deeply nested ones", async () => {
    const plain = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${gw.key.key}`, "content-type": "text/plain" }, body: "{}" });
    expect(plain.status).toBe(415);
    const deep = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${gw.key.key}`, "content-type": "application/json" }, body: `{"model":"m1","messages":${"[".repeat(10_000)}${"]".repeat(10_000)}}` });
    expect({ status: deep.status, code: ((await deep.json()) as { error: { sluice_code: string } }).error.sluice_code }).toEqual({ status: 400, code: "REQUEST_INVALID" });
  });

  it("limits failed key checks per address and key: the looping wrong key gets 429 RATE_LIMITED, a good key from the same address still works", async () => {
    const limited = await startGateway({ authFailures: { max: 3 } });
    try {
      const send = (key: string) => fetch(`${limited.url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ model: "m1", messages: [{ role: "user", content: "hi" }] }) });
      for (let i = 0; i < 3; i++) expect((await send("sk-sluice-guess")).status).toBe(401);
      const res = await send("sk-sluice-guess");
      expect({ status: res.status, code: ((await res.json()) as { error: { sluice_code: string } }).error.sluice_code }).toEqual({ status: 429, code: "RATE_LIMITED" });
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect((await send(limited.key.key)).status).not.toBe(429);
    } finally {
      await limited.close();
    }
  });

  it("counts failed keys sent as x-api-key or x-goog-api-key per key too: Anthropic and Gemini clients with the right key carry on while a wrong one loops", async () => {
    const limited = await startGateway({ authFailures: { max: 2 }, protocols: true });
    try {
      const { default: Anthropic } = await import("@anthropic-ai/sdk");
      const { GoogleGenAI } = await import("@google/genai");
      // The key as Claude Code sends it (this SDK's apiKey goes as a bearer token).
      const claude = (apiKey: string) => new Anthropic({ apiKey: null, defaultHeaders: { "x-api-key": apiKey }, baseURL: limited.url, maxRetries: 0 }).messages.create({ model: "claude-test", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
      const gemini = (apiKey: string) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: limited.url } }).models.generateContent({ model: "gemini-test", contents: "hi" });
      for (const [call, wrong] of [[claude, "sk-sluice-guess-one"], [gemini, "sk-sluice-guess-two"]] as const) {
        const statuses: number[] = [];
        for (let i = 0; i < 3; i++) statuses.push(await call(wrong).then(() => 200, (e: { status: number }) => e.status));
        expect(statuses).toEqual([401, 401, 429]);
        await expect(call(limited.key.key)).resolves.toBeDefined();
      }
    } finally {
      await limited.close();
    }
  });
});
