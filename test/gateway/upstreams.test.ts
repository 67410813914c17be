/**
 * Every upstream flag takes the URL a user gives, with or without its version segment; the
 * gateway serves only the routes that have an upstream, and `sluice serve` opens its port
 * and names each upstream when any upstream flag is given.
 */
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { createHost, type Host } from "../../host/index.js";
import { createGateway, GatewayKeys } from "../../host/gateway/index.js";
import { upstreamBase } from "../../host/gateway/upstream-url.js";
import { tempDir } from "../registry/fixtures.js";
import { spawnSluice, stop, waitFor } from "../cli/run-cli.js";
import { startStubUpstream, answerOf, type StubUpstream } from "./upstream-stub.js";
import { startAnthropicStub, type AnthropicStub } from "./anthropic-stub.js";

describe("an upstream's base URL", () => {
  it("gets its protocol's version segment when it has none, and is kept as given when it has one", () => {
    expect(upstreamBase("http://127.0.0.1:8000", "openai", "--upstream")).toBe("http://127.0.0.1:8000/v1");
    expect(upstreamBase("https://api.openai.com/v1/", "openai", "--upstream")).toBe("https://api.openai.com/v1");
    expect(upstreamBase("https://openrouter.ai/api", "openai", "--upstream")).toBe("https://openrouter.ai/api/v1");
    expect(upstreamBase("https://openrouter.ai/api/v1", "openai", "--upstream")).toBe("https://openrouter.ai/api/v1");
    expect(upstreamBase("https://generativelanguage.googleapis.com/v1beta/openai/", "openai", "--upstream")).toBe("https://generativelanguage.googleapis.com/v1beta/openai");
    expect(upstreamBase("https://api.anthropic.com", "anthropic", "--anthropic-upstream")).toBe("https://api.anthropic.com/v1");
    expect(upstreamBase("https://api.anthropic.com/v1", "anthropic", "--anthropic-upstream")).toBe("https://api.anthropic.com/v1");
    expect(upstreamBase("https://generativelanguage.googleapis.com", "gemini", "--gemini-upstream")).toBe("https://generativelanguage.googleapis.com/v1beta");
    expect(upstreamBase("https://generativelanguage.googleapis.com/v1beta", "gemini", "--gemini-upstream")).toBe("https://generativelanguage.googleapis.com/v1beta");
  });

  it("is refused naming the option when it is not an http(s) URL", () => {
    expect(() => upstreamBase("api.anthropic.com", "anthropic", "--anthropic-upstream")).toThrow(/--anthropic-upstream "api.anthropic.com" is not a URL; give the upstream's base URL, e.g. https:\/\/api.anthropic.com/);
    expect(() => upstreamBase("ftp://x", "openai", "--upstream")).toThrow(/--upstream must be http\(s\)/);
  });
});

describe("a gateway with some upstreams", () => {
  let host: Host;
  let keys: GatewayKeys;
  let openai: StubUpstream;
  let anthropic: AnthropicStub;
  let key = "";
  beforeAll(async () => {
    host = createHost({ workers: 1 });
    keys = new GatewayKeys(":memory:");
    key = (await keys.create({ spaceId: "s", name: "t" })).key;
    openai = await startStubUpstream();
    anthropic = await startAnthropicStub();
  });
  afterAll(async () => {
    await openai.close();
    await anthropic.close();
    await keys.close();
    await host.close();
  });

  it("forwards chat completions to an OpenAI upstream given without /v1", async () => {
    const app = createGateway({ host, keys, upstream: { baseUrl: openai.url }, logger: false });
    await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      const client = new OpenAI({ apiKey: key, baseURL: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`, maxRetries: 0 });
      const r = await client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "hi" }] });
      expect(r.choices[0]?.message.content).toBe(answerOf("hi"));
    } finally {
      await app.close();
    }
  });

  it("serves only the routes that have an upstream, naming those it serves", async () => {
    const app = createGateway({ host, keys, anthropicUpstream: { baseUrl: `${anthropic.url}/v1` }, logger: false });
    await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      const chat = await fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ model: "m1", messages: [{ role: "user", content: "hi" }] }) });
      expect(chat.status).toBe(404);
      expect(((await chat.json()) as { error: { message: string } }).error.message).toBe("no route POST /v1/chat/completions; this gateway serves POST /v1/messages, POST /v1/messages/count_tokens, GET /v1/models");
      const m = await new Anthropic({ apiKey: key, baseURL: url, maxRetries: 0 }).messages.create({ model: "c", max_tokens: 10, messages: [{ role: "user", content: "hi" }] });
      expect(m.content).toEqual([{ type: "text", text: "You said: hi" }]);
    } finally {
      await app.close();
    }
  });

  it("is refused without any upstream", () => {
    expect(() => createGateway({ host, keys, logger: false })).toThrow(/needs at least one upstream/);
  });
});

describe("sluice serve with upstream flags", () => {
  it("opens the gateway port for --anthropic-upstream and --gemini-upstream alone and names each upstream", async () => {
    const work = tempDir("sluice-upstreams-");
    const child = spawnSluice(["serve", "--port", "0", "--gateway-port", "0", "--anthropic-upstream", "http://127.0.0.1:9/", "--gemini-upstream", "http://127.0.0.1:9/v1beta"], {
      SLUICE_DATA_DIR: path.join(work, "data"), SLUICE_TOKEN: "upstreams-test-token-0123456789abcdefgh", SLUICE_LOG_LEVEL: "silent",
    }, work);
    try {
      const out = await waitFor(child, /sluice listening on \S+/);
      expect(out).toMatch(/gateway listening on http:\/\/127\.0\.0\.1:\d+ \(keys from POST \/api\/v1\/gateway\/keys\)\n/);
      expect(out).toContain("  Anthropic: POST /v1/messages, POST /v1/messages/count_tokens, GET /v1/models -> upstream http://127.0.0.1:9/v1\n");
      expect(out).toContain("  Gemini: POST /v1beta/models/{model}:generateContent, POST /v1beta/models/{model}:streamGenerateContent, POST /v1beta/models/{model}:countTokens, GET /v1beta/models -> upstream http://127.0.0.1:9/v1beta\n");
      expect(out).not.toContain("OpenAI");
    } finally {
      await stop(child);
    }
  }, 60_000);

  it("refuses a flag that is not a URL, naming the flag and its variable", async () => {
    const child = spawnSluice(["serve", "--print-config", "--anthropic-upstream", "api.anthropic.com"], {});
    let err = "";
    child.stderr.on("data", (d: Buffer) => { err += d; });
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).not.toBe(0);
    expect(err).toContain('--anthropic-upstream (SLUICE_ANTHROPIC_UPSTREAM) "api.anthropic.com" is not a URL');
  });
});
