// A service's model call that returns something that is not a chat answer gets a result
// with MODEL_OUTPUT_INVALID naming the field, never a TypeError thrown out of host.chat or
// host.chatStream (no boundary call ever throws). Fields the host does not read
// pass through untouched.
import { afterAll, describe, expect, it } from "vitest";
import { createHost } from "../../host/index.js";
import type { ChatResponse } from "../../host/boundary/chat.js";

const host = createHost({ workers: 1 });
afterAll(() => host.close());
const request = { model: "m", messages: [{ role: "user" as const, content: "hi" }] };
const chat = (answer: unknown) => host.chat({ spaceId: "s" }, request, async () => answer as ChatResponse);

describe("a chat answer", () => {
  const bad: [string, unknown, RegExp][] = [
    ["null", null, /the model's answer must be an object .*got null/],
    ["undefined", undefined, /got undefined/],
    ["a string", "hello", /got string/],
    ["content of the wrong type", { content: 5 }, /^content must be a string, null or an array of content parts, got number$/],
    ["tool_calls that are not an array", { content: null, tool_calls: {} }, /^tool_calls must be an array, got object$/],
    ["a tool_call without a function", { content: null, tool_calls: [{ id: "t1" }] }, /^tool_calls\[0\]\.function must be an object, got undefined$/],
    ["usage with text tokens", { content: "x", usage: { input_tokens: "3" } }, /^usage\.input_tokens must be a non-negative number, got string$/],
  ];
  for (const [name, answer, message] of bad) {
    it(`that is ${name} is MODEL_OUTPUT_INVALID, returned, not thrown`, async () => {
      const r = await chat(answer);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe("MODEL_OUTPUT_INVALID");
        expect(r.error.message).toMatch(message);
      }
    });
  }

  it("with fields the host does not read passes them through unchanged", async () => {
    const answer = { content: "ok", tool_calls: [], finish_reason: "stop", usage: { input_tokens: 1, output_tokens: 2, cached_tokens: 1 }, provider_request_id: "req-1", system_fingerprint: "fp" };
    const r = await chat(answer);
    expect(r.ok && r.output).toMatchObject({ content: "ok", usage: { input_tokens: 1, output_tokens: 2 } });
    expect(r.facts.realResult).toEqual(answer);
  });

  it("whose tool_call arguments are broken reports their length, not their text", async () => {
    const r = await chat({ content: null, tool_calls: [{ id: "t1", type: "function", function: { name: "search", arguments: '{"q": "jane@example.com",' } }], finish_reason: "tool_calls" });
    expect(!r.ok && r.error.code).toBe("MODEL_OUTPUT_INVALID");
    expect(!r.ok && r.error.message).not.toContain("jane@example.com");
    expect(!r.ok && r.error.message).toMatch(/not a JSON object \(25 characters\)/);
  });
});

describe("a streamed chat", () => {
  it("whose source yields something that is not a chunk ends with MODEL_OUTPUT_INVALID in its result", async () => {
    const stream = host.chatStream({ spaceId: "s" }, request, async function* () { yield { delta: "a" }; yield null as never; });
    const seen: string[] = [];
    const thrown = await (async () => { for await (const c of stream) seen.push(c.delta); })().then(() => undefined, (e: { code?: string }) => e.code);
    expect(thrown).toBe("MODEL_OUTPUT_INVALID");
    const r = await stream.result;
    expect(!r.ok && r.error.code).toBe("MODEL_OUTPUT_INVALID");
    expect(!r.ok && r.error.message).toMatch(/^stream chunk 1 must be an object/);
  });

  it("whose chunk has a delta that is not text ends the same way, naming the field", async () => {
    const stream = host.chatStream({ spaceId: "s" }, request, async function* () { yield { delta: 7 } as never; });
    await (async () => { for await (const _ of stream) { /* drain */ } })().catch(() => undefined);
    const r = await stream.result;
    expect(!r.ok && r.error.message).toMatch(/^chunk 0\.delta must be a string, got number$/);
  });
});
