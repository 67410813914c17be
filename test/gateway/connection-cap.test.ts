/**
 * More clients than the connection cap: each gets its answer or a 503 it can
 * retry on (retry-after), never a reset socket, and the official client's retries turn every
 * 503 into an answer.
 */
import { request } from "node:http";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerOf } from "./upstream-stub.js";
import { startGateway, type GatewayUnderTest } from "./setup.js";
import { gatedSource } from "../helpers/gated-source.js";
import { until } from "../helpers/until.js";

const CAP = 3;
const CLIENTS = 12;
let gw: GatewayUnderTest;
beforeAll(async () => { gw = await startGateway({ timeoutMs: 5_000, limits: { maxConnections: CAP } }); gw.bind([]); });
afterAll(() => gw.close());

type Outcome = { status: number; retryAfter?: string; body: any } | { error: string };

/** One client on its own connection (no agent), as separate processes or hosts would be. */
function ask(content: string): Promise<Outcome> {
  const body = JSON.stringify({ model: "m1", messages: [{ role: "user", content }] });
  return new Promise((resolve) => {
    const req = request(`${gw.url}/v1/chat/completions`, { method: "POST", agent: false, headers: { authorization: `Bearer ${gw.key.key}`, "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => { text += c; });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, ...(res.headers["retry-after"] !== undefined ? { retryAfter: String(res.headers["retry-after"]) } : {}), body: JSON.parse(text) }));
      res.on("error", (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    });
    req.on("error", (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    req.end(body);
  });
}

describe("the connection cap", () => {
  it("answers a client over the cap 503 with retry-after in OpenAI's format, never a reset", async () => {
    const outcomes = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => ask(`[slow] client ${i}`)));
    const resets = outcomes.filter((o) => "error" in o);
    expect(resets).toEqual([]);
    const answered = outcomes.filter((o): o is Exclude<Outcome, { error: string }> => "status" in o && o.status === 200);
    const busy = outcomes.filter((o): o is Exclude<Outcome, { error: string }> => "status" in o && o.status === 503);
    expect(answered.length + busy.length).toBe(CLIENTS);
    expect(answered.length).toBeGreaterThanOrEqual(CAP);
    expect(busy.length).toBeGreaterThan(0);
    for (const o of answered) expect(o.body.choices[0].message.content).toMatch(/^You said: \[slow\] client \d+$/);
    for (const o of busy) {
      expect(o.retryAfter).toBe("1");
      expect(o.body.error).toMatchObject({ type: "server_error", sluice_code: "CONNECTIONS_FULL", code: "CONNECTIONS_FULL" });
    }
  });

  it("lets the official OpenAI client retry its way to an answer", async () => {
    const client = new OpenAI({ apiKey: gw.key.key, baseURL: `${gw.url}/v1`, maxRetries: 5 });
    const prompts = Array.from({ length: CLIENTS }, (_, i) => `[slow] retried ${i}`);
    // Concurrent calls open one connection each (the client's pool has no limit).
    const answers = await Promise.all(prompts.map((content) => client.chat.completions.create({ model: "m1", messages: [{ role: "user", content }] }).then((r) => r.choices[0]!.message.content)));
    expect(answers).toEqual(prompts.map(answerOf));
  }, 30_000);
});

describe("the connection cap, for Anthropic and Gemini clients", () => {
  it("answers a client over the cap 503 in its own protocol's format, which its SDK raises", async () => {
    const capped = await startGateway({ timeoutMs: 5_000, limits: { maxConnections: 1 }, protocols: true });
    try {
      capped.bind([]);
      // One slow call holds the only connection.
      const gate = gatedSource(10_000);
      capped.anthropic!.stub.gate = gate;
      const held = capped.anthropic!.client.messages.create({ model: "claude-test", max_tokens: 10, stream: true, messages: [{ role: "user", content: "hold the line [gate]" }] });
      await until(() => capped.anthropic!.stub.bodies.length === 1);
      const { default: Anthropic } = await import("@anthropic-ai/sdk");
      const { ApiError, GoogleGenAI } = await import("@google/genai");
      const claude = await new Anthropic({ apiKey: capped.key.key, baseURL: capped.url, maxRetries: 0 }).messages.create({ model: "claude-test", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }).then(() => null, (e) => e);
      expect(claude).toBeInstanceOf(Anthropic.InternalServerError);
      expect(claude).toMatchObject({ status: 503, error: { type: "error", error: { type: "overloaded_error", sluice_code: "CONNECTIONS_FULL" } } });
      const gemini = await new GoogleGenAI({ apiKey: capped.key.key, httpOptions: { baseUrl: capped.url } }).models.generateContent({ model: "gemini-test", contents: "hi" }).then(() => null, (e) => e);
      expect(gemini).toBeInstanceOf(ApiError);
      expect(JSON.parse(gemini.message)).toMatchObject({ error: { code: 503, status: "UNAVAILABLE", sluice_code: "CONNECTIONS_FULL" } });
      gate.read("go");
      for await (const _ of await held) { /* drain */ }
    } finally {
      await capped.close();
    }
  });
});
