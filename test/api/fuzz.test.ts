/**
 * Every route's body, fuzzed: whatever a client sends, the answer is never a
 * 5xx. Malformed input is a 4xx with a catalogue code.
 */
import fc from "fast-check";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiServer } from "../../host/api/server.js";
import { GatewayKeys } from "../../host/keys/keys.js";
import { Registry } from "../../host/registry/registry.js";
import { fixture, manifestYaml, tempDir, toolPayload } from "../registry/fixtures.js";
import { startGateway, type GatewayUnderTest } from "../gateway/setup.js";
import { TOKEN } from "./server-helpers.js";

let registry: Registry;
let app: FastifyInstance;
let gw: GatewayUnderTest;
beforeAll(async () => {
  registry = await Registry.open({ dataDir: tempDir(), hostOptions: { workers: 1 } });
  await registry.upload({ manifest: manifestYaml(), wasm: fixture("continue") });
  await registry.createBinding({ id: "b", hook_ref: "clamp@1.0.0", point: "tool.before", config: { max_limit: 1 } });
  await registry.publish({ activate: true });
  app = await createApiServer({ registry, token: TOKEN, logger: false, gatewayKeys: new GatewayKeys(":memory:"), authFailures: { max: 1_000_000 } });
  gw = await startGateway({ timeoutMs: 2_000 });
  gw.bind([]);
}, 60_000);
afterAll(async () => { await app.close(); await registry.close(); await gw.close(); });

/** Values that look like what the routes expect, with any field anything. */
const anything = fc.jsonValue({ maxDepth: 4 });
const bodies = fc.oneof(
  anything,
  fc.dictionary(fc.constantFrom("id", "hook_ref", "point", "config", "match", "priority", "manifest", "wasm_base64", "payload", "context", "order", "order_mode", "enabled", "revision", "activate", "note", "space_id", "name"), anything),
  fc.record({ id: fc.constantFrom("b", "c", "../x"), hook_ref: fc.constantFrom("clamp@1.0.0", "x@1", "clamp@9.9.9"), point: fc.constantFrom("tool.before", "tool.after", "nope"), config: anything }, { requiredKeys: [] }),
  fc.record({ point: fc.constantFrom("tool.before", "model.chat.before"), payload: fc.oneof(anything, fc.constant(toolPayload)), config: anything, context: anything }, { requiredKeys: [] }),
);
const texts = fc.oneof(bodies.map((b) => JSON.stringify(b) ?? "null"), fc.string({ maxLength: 50 }));

describe("fuzzing every route's body", () => {
  it("the management API answers no 5xx", async () => {
    const doc = (await app.inject({ url: "/api/v1/openapi.json", headers: { authorization: `Bearer ${TOKEN}` } })).json() as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(doc.paths).flatMap(([p, methods]) => Object.keys(methods).map((m) => ({ method: m.toUpperCase(), url: p.replace("{id}", "b").replace("{version}", "1.0.0").replace("{revision}", "1").replace(/\{[^}]+\}/g, "x") })))
      .map((r) => (r.url.startsWith("/api/v1/plugins/b") ? { ...r, url: r.url.replace("/api/v1/plugins/b", "/api/v1/plugins/clamp") } : r));
    expect(routes.length).toBeGreaterThan(20);
    const statuses = new Set<number>();
    for (const route of routes) {
      await fc.assert(fc.asyncProperty(texts, async (body) => {
        const res = await app.inject({ method: route.method as "POST", url: route.url, headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }, payload: body });
        statuses.add(res.statusCode);
        if (res.statusCode >= 500) throw new Error(`${route.method} ${route.url} ${body.slice(0, 200)} → ${res.statusCode} ${res.body.slice(0, 300)}`);
        if (res.statusCode >= 400) expect(typeof (res.json() as { error: { code: string } }).error.code).toBe("string");
      }), { numRuns: 25 });
    }
    expect([...statuses]).toEqual(expect.arrayContaining([200, 400, 404]));
  }, 120_000);

  it("the gateway answers no 5xx to any client body (the upstream answering)", async () => {
    const message = fc.record({ role: fc.oneof(fc.constantFrom("user", "system", "assistant", "tool"), anything), content: anything, tool_calls: anything, tool_call_id: anything, name: anything }, { requiredKeys: ["role"] });
    const chat = fc.record({ model: fc.oneof(fc.constant("m1"), anything), messages: fc.oneof(fc.array(message, { maxLength: 3 }), anything), stream: fc.oneof(fc.boolean(), anything), tools: anything, temperature: anything, stop: anything, n: anything, max_tokens: anything }, { requiredKeys: ["model", "messages"] });
    const embed = fc.record({ model: fc.oneof(fc.constant("e5"), anything), input: fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }), anything), encoding_format: fc.oneof(fc.constantFrom("float", "base64"), anything) }, { requiredKeys: ["model"] });
    const wellFormed = fc.record({ model: fc.constant("m1"), messages: fc.array(fc.record({ role: fc.constantFrom("user", "system"), content: fc.string() }), { minLength: 1, maxLength: 2 }), stream: fc.boolean(), temperature: fc.oneof(fc.double({ min: 0, max: 2, noNaN: true }), anything) }, { requiredKeys: ["model", "messages"] });
    const wellFormedEmbed = fc.record({ model: fc.constant("e5"), input: fc.oneof(fc.string(), fc.array(fc.string(), { minLength: 1, maxLength: 3 })) });
    const part = fc.oneof(fc.record({ type: fc.oneof(fc.constantFrom("input_text", "output_text", "input_image", "input_file", "refusal"), anything), text: anything, image_url: anything }, { requiredKeys: ["type"] }), anything);
    const item = fc.record({ type: fc.oneof(fc.constantFrom("message", "function_call", "function_call_output", "reasoning", "item_reference"), anything), role: fc.oneof(fc.constantFrom("user", "system", "developer", "assistant"), anything), content: fc.oneof(fc.string(), fc.array(part, { maxLength: 3 }), anything), call_id: anything, name: anything, arguments: anything, output: anything }, { requiredKeys: [] });
    const responses = fc.record({ model: fc.oneof(fc.constant("m1"), anything), input: fc.oneof(fc.string(), fc.array(item, { maxLength: 3 }), anything), instructions: anything, stream: fc.oneof(fc.boolean(), anything), tools: fc.oneof(fc.array(fc.record({ type: fc.oneof(fc.constant("function"), anything), name: anything, parameters: anything }), { maxLength: 2 }), anything), tool_choice: anything, text: anything, reasoning: anything, max_output_tokens: anything }, { requiredKeys: ["model", "input"] });
    const wellFormedResponses = fc.record({ model: fc.constant("m1"), input: fc.oneof(fc.string(), fc.array(fc.record({ role: fc.constantFrom("user", "system"), content: fc.string() }), { minLength: 1, maxLength: 2 })), stream: fc.boolean() });
    for (const [url, arb] of [["/v1/chat/completions", fc.oneof(chat, wellFormed)], ["/v1/responses", fc.oneof(responses, wellFormedResponses)], ["/v1/embeddings", fc.oneof(embed, wellFormedEmbed)]] as const) {
      const answered = new Set<number>();
      await fc.assert(fc.asyncProperty(fc.oneof(arb.map((b) => JSON.stringify(b)), texts), async (body) => {
        const res = await gw.app.inject({ method: "POST", url, headers: { authorization: `Bearer ${gw.key.key}`, "content-type": "application/json" }, payload: body });
        answered.add(res.statusCode);
        if (res.statusCode >= 500) throw new Error(`${url} ${body.slice(0, 300)} → ${res.statusCode} ${res.body.slice(0, 300)}`);
      }), { numRuns: 300 });
      // The fuzz reached the upstream, not only the checks in front of it.
      expect([...answered]).toContain(200);
    }
  }, 120_000);
});
