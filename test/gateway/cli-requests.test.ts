/**
 * The model requests the coding-agent CLIs really send (recorded by
 * test/agents/record-model-requests.ts into test/fixtures/model-requests, long strings cut),
 * replayed through the gateway against the stubs: each is served, never refused for its shape;
 * Anthropic's and Gemini's go upstream as they came; model.chat.before sees every message and
 * tool of each. The CLIs themselves run through `sluice serve` in test/agents/gateway-*.test.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RequestEnvelope } from "../../abi/envelope.js";
import { startGateway, type GatewayUnderTest } from "./setup.js";

const dir = fileURLToPath(new URL("../fixtures/model-requests/", import.meta.url));
interface Recorded { method: string; url: string; body: Record<string, any> }
const recorded = readdirSync(dir).flatMap((agent) => readdirSync(join(dir, agent)).sort().map((file) => ({
  agent, file, ...(JSON.parse(readFileSync(join(dir, agent, file), "utf8")) as Recorded),
})));

let gw: GatewayUnderTest;
const seen: RequestEnvelope[] = [];
beforeAll(async () => {
  gw = await startGateway({ protocols: true, timeoutMs: 5_000 });
  gw.host.registerHook("spy", (req) => { seen.push(req); return { kind: "continue" }; });
  gw.bind([{ id: "spy", hookRef: "spy", point: "model.chat.before" }]);
});
afterAll(() => gw.close());

/** How many tools of a request the hooks see: every tool Anthropic and Gemini declare; Responses' function tools, and the ones it does not forward shown beside them. */
function toolsOf(r: Recorded): number {
  if (r.url.startsWith("/v1beta/")) return (r.body.tools ?? []).flatMap((t: any) => t.functionDeclarations ?? []).length;
  return (r.body.tools ?? []).length;
}

describe("the CLIs' recorded model requests through the gateway", () => {
  it("has a recording of each CLI's routes", () => {
    expect(recorded.map((r) => `${r.agent} ${r.url.replace(/models\/[^:]+:/, "models/*:")}`)).toEqual(expect.arrayContaining([
      "claude-code /v1/messages?beta=true",
      "codex /v1/responses",
      "gemini-cli /v1beta/models/*:generateContent",
      "gemini-cli /v1beta/models/*:streamGenerateContent?alt=sse",
    ]));
  });

  for (const r of recorded) {
    it(`serves ${r.agent}'s ${r.file} (${r.method} ${r.url}) as the CLI sent it, the hooks seeing its messages and tools`, async () => {
      seen.length = 0;
      const stub = r.url.startsWith("/v1beta/") ? gw.gemini!.stub : r.url.startsWith("/v1/messages") ? gw.anthropic!.stub : gw.stub;
      const calls = stub.bodies.length;
      const res = await fetch(`${gw.url}${r.url}`, { method: r.method, headers: { authorization: `Bearer ${gw.key.key}`, "content-type": "application/json", "anthropic-version": "2023-06-01" }, body: JSON.stringify(r.body) });
      const text = await res.text();
      expect(res.status, text.slice(0, 500)).toBe(200);
      expect(stub.bodies.length).toBe(calls + 1);
      if (stub !== gw.stub) expect(stub.bodies.at(-1)).toEqual(r.body);
      const payload = seen[0]!.payload as { messages: unknown[]; tools?: unknown[] };
      expect(payload.messages.length).toBeGreaterThan(0);
      expect(payload.tools ?? []).toHaveLength(toolsOf(r));
    });
  }
});
