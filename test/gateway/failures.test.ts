/** What the gateway does when the key, the upstream or the client fails. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import OpenAI from "openai";
import { startGateway, type GatewayUnderTest } from "./setup.js";
import { until } from "../helpers/until.js";

let gw: GatewayUnderTest;
beforeAll(async () => { gw = await startGateway({ timeoutMs: 300 }); });
afterAll(() => gw.close());

const ask = (content: string, stream = false, client = gw.client) => client.chat.completions.create({ model: "m1", messages: [{ role: "user", content }], stream });
const failure = (p: Promise<unknown>) => p.then(() => { throw new Error("expected a failure"); }, (e) => e);

describe("gateway failures", () => {
  it("refuses a missing, unknown or revoked key with 401 GATEWAY_KEY_INVALID before calling anything", async () => {
    gw.bind([]);
    const calls = gw.stub.chatCalls;
    const revoked = await gw.keys.create({ spaceId: "space-a" });
    await gw.keys.revoke(revoked.record.id);
    for (const apiKey of ["sk-sluice-not-a-real-key", revoked.key, "sk-openai-style"]) {
      const err = await failure(ask("hi", false, new OpenAI({ apiKey, baseURL: `${gw.url}/v1`, maxRetries: 0 })));
      expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
      expect(err).toMatchObject({ status: 401, code: "GATEWAY_KEY_INVALID", type: "authentication_error" });
    }
    const bare = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(bare.status).toBe(401);
    expect(gw.stub.chatCalls).toBe(calls);
  });

  it("answers 502 UPSTREAM_FAILED when the upstream errors, streamed or not", async () => {
    for (const stream of [false, true]) {
      const err = await failure(ask("[fail]", stream));
      expect(err).toBeInstanceOf(OpenAI.InternalServerError);
      expect(err).toMatchObject({ status: 502, code: "UPSTREAM_FAILED", error: { sluice_code: "UPSTREAM_FAILED" } });
      expect(err.message).toMatch(/HTTP 500: upstream exploded/);
    }
  });

  it("keeps the status and error of an upstream error the client can act on (429)", async () => {
    const err = await failure(ask("[limit]"));
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err).toMatchObject({ status: 429, code: "rate_limit_exceeded", error: { message: "slow down", sluice_code: "UPSTREAM_FAILED" } });
  });

  it("passes on the upstream's retry-after and retry-after-ms, streamed or not, so clients wait as long as the provider asked", async () => {
    for (const stream of [false, true]) {
      const limited = await failure(ask("[limit]", stream)) as InstanceType<typeof OpenAI.APIError>;
      expect({ status: limited.status, retryAfter: limited.headers?.get("retry-after"), ms: limited.headers?.get("retry-after-ms"), shouldRetry: limited.headers?.get("x-should-retry") })
        .toEqual({ status: 429, retryAfter: "7", ms: "6500", shouldRetry: null });
      // An HTTP date becomes the seconds left until it.
      const overloaded = await failure(ask("[overloaded]", stream)) as InstanceType<typeof OpenAI.APIError>;
      expect(overloaded.status).toBe(502);
      expect(Number(overloaded.headers?.get("retry-after"))).toBeGreaterThanOrEqual(28);
      expect(Number(overloaded.headers?.get("retry-after"))).toBeLessThanOrEqual(30);
      // Values that do not parse are not passed on.
      const bad = await failure(ask("[badwait]", stream)) as InstanceType<typeof OpenAI.APIError>;
      expect({ status: bad.status, retryAfter: bad.headers?.get("retry-after"), ms: bad.headers?.get("retry-after-ms") }).toEqual({ status: 429, retryAfter: null, ms: null });
    }
  });

  it("tells a client not to retry an error that would fail again, with no retry-after", async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${gw.key.key}`, "content-type": "application/json" }, body: JSON.stringify({ model: "m1", messages: "not a list" }) });
    expect({ status: res.status, shouldRetry: res.headers.get("x-should-retry"), retryAfter: res.headers.get("retry-after") }).toEqual({ status: 400, shouldRetry: "false", retryAfter: null });
  });

  it("answers 504 UPSTREAM_TIMEOUT when the upstream hangs past the timeout, and cancels the upstream request", async () => {
    for (const stream of [false, true]) {
      const cancelled = gw.stub.cancelled;
      const t0 = Date.now();
      const err = await failure(ask("[hang]", stream));
      expect(err).toMatchObject({ status: 504, code: "UPSTREAM_TIMEOUT" });
      expect(Date.now() - t0).toBeLessThan(2_000);
      expect(await until(() => gw.stub.cancelled === cancelled + 1)).toBe(true);
    }
  });

  it("ends a stream whose upstream goes silent mid-way with an UPSTREAM_TIMEOUT error event", async () => {
    const stream = await gw.client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "[stall]" }], stream: true });
    let text = "";
    const err = await failure((async () => { for await (const c of stream) text += c.choices[0]?.delta.content ?? ""; })());
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err).toMatchObject({ code: "UPSTREAM_TIMEOUT" });
    // What the chunk hooks saw before the silence is sent; nothing else is.
    expect(text).toBe("partial answer ");
  });

  it("a client that disconnects mid-stream cancels the upstream stream", async () => {
    const cancelled = gw.stub.cancelled;
    const controller = new AbortController();
    const stream = await gw.client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "[stall]" }], stream: true }, { signal: controller.signal });
    // The openai client ends an aborted stream's iteration quietly.
    for await (const c of stream) if (c.choices[0]?.delta.content) controller.abort();
    expect(await until(() => gw.stub.cancelled === cancelled + 1, 250)).toBe(true);
  });

  it("a client that disconnects cancels the upstream request", async () => {
    for (const stream of [false, true]) {
      const cancelled = gw.stub.cancelled;
      const calls = gw.stub.chatCalls;
      const controller = new AbortController();
      const pending = failure(gw.client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "[hang]" }], stream }, { signal: controller.signal, timeout: 10_000 }));
      await until(() => gw.stub.chatCalls === calls + 1);
      controller.abort();
      expect(await pending).toBeInstanceOf(OpenAI.APIUserAbortError);
      expect(await until(() => gw.stub.cancelled === cancelled + 1, 250)).toBe(true);
    }
  });

  it("a client that disconnects cancels the hook that is running for it, and the upstream is never called", async () => {
    let aborted = 0;
    let started = 0;
    gw.host.registerHook("waits", (_req, { signal }) => new Promise((resolve) => {
      started++;
      signal.addEventListener("abort", () => { aborted++; resolve({ kind: "continue" }); }, { once: true });
    }));
    gw.bind([{ id: "slow", hookRef: "waits", point: "model.chat.before", timeoutMs: 10_000 }]);
    const calls = gw.stub.chatCalls;
    const controller = new AbortController();
    const pending = failure(gw.client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "hi" }] }, { signal: controller.signal }));
    await until(() => started === 1);
    controller.abort();
    await pending;
    expect(await until(() => aborted === 1)).toBe(true);
    expect(gw.stub.chatCalls).toBe(calls);
    gw.bind([]);
  });

  it("answers an invalid request with 400 and the parameter it is about", async () => {
    const err = await failure(gw.client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "hi" }], n: 2 }));
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err).toMatchObject({ status: 400, code: "REQUEST_INVALID", param: "n" });
    const notFound = await fetch(`${gw.url}/v1/completions`, { method: "POST", headers: { authorization: `Bearer ${gw.key.key}` } });
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toMatchObject({ error: { type: "not_found_error", param: null } });
  });
});
