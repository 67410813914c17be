/**
 * An upstream that cannot be reached (down, or gone mid-stream): the client learns that,
 * with the request id to quote, and nothing of the gateway's network (no address, no port,
 * no socket error); the server log has the detail under the same request id.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { createHost, type Host } from "../../host/index.js";
import { createGateway, GatewayKeys } from "../../host/gateway/index.js";

let host: Host;
let keys: GatewayKeys;
let key: string;
const logs: string[] = [];
const servers: FastifyInstance[] = [];
let downPort: number;
let cutting: Server;

async function gatewayTo(baseUrl: string): Promise<string> {
  const app = createGateway({ host, keys, upstream: { baseUrl, apiKey: "sk-upstream-secret", timeoutMs: 2_000 }, logger: { level: "warn", stream: { write: (line: string) => { logs.push(line); } } } });
  await app.listen({ port: 0, host: "127.0.0.1" });
  servers.push(app);
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  host = createHost({ workers: 1 });
  host.activate({ revision: 1, bindings: [] });
  keys = new GatewayKeys(":memory:");
  key = (await keys.create({ spaceId: "space-a" })).key;
  // A port that was just free: nothing listens there.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  downPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  // An upstream that starts a stream and then drops the connection.
  cutting = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(`data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m1", choices: [{ index: 0, delta: { role: "assistant", content: "Hel" }, finish_reason: null }] })}\n\n`);
      setTimeout(() => res.socket?.destroy(), 20);
    });
  });
  await new Promise<void>((resolve) => cutting.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  for (const app of servers) await app.close();
  await new Promise<void>((resolve) => cutting.close(() => resolve()));
  await keys.close();
  await host.close();
});

const post = (url: string, path: string, body: unknown) =>
  fetch(`${url}${path}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });

/** What must never reach a client: an address, a port, a socket error's text. */
function expectNoNetworkDetail(text: string, port: number): void {
  expect(text).not.toContain("127.0.0.1");
  expect(text).not.toContain(String(port));
  expect(text).not.toMatch(/\bE[A-Z]{3,}\b/);
  expect(text).not.toMatch(/socket|other side closed|terminated|connect /i);
}

/** The log line about request `id` at warn (40) or above, carrying the detail. */
function logLineOf(id: string): string | undefined {
  return logs.find((l) => { const j = JSON.parse(l) as { reqId?: string; level: number }; return j.reqId === id && j.level >= 40; });
}

const chat = (stream: boolean) => ({ model: "m1", messages: [{ role: "user", content: "hi" }], stream });
const cases = [
  { name: "a chat completion", path: "/v1/chat/completions", body: chat(false) },
  { name: "a streamed chat completion", path: "/v1/chat/completions", body: chat(true) },
  { name: "a response", path: "/v1/responses", body: { model: "m1", input: "hi" } },
  { name: "a streamed response", path: "/v1/responses", body: { model: "m1", input: "hi", stream: true } },
  { name: "an embedding", path: "/v1/embeddings", body: { model: "e1", input: "hi" } },
];

describe("an upstream that cannot be reached", () => {
  for (const c of cases) {
    it(`answers ${c.name} with 502 UPSTREAM_FAILED naming the request id and no address, and logs the detail`, async () => {
      const url = await gatewayTo(`http://127.0.0.1:${downPort}/v1`);
      const res = await post(url, c.path, c.body);
      const id = res.headers.get("x-request-id")!;
      const text = await res.text();
      expect(res.status).toBe(502);
      const body = JSON.parse(text) as { error: { message: string; sluice_code: string } };
      expect(body.error.sluice_code).toBe("UPSTREAM_FAILED");
      expect(body.error.message).toBe(`the upstream could not be reached (request id ${id})`);
      expectNoNetworkDetail(text, downPort);
      await expect.poll(() => logLineOf(id)).toBeDefined();
      expect(logLineOf(id)).toContain("ECONNREFUSED");
      expect(logLineOf(id)).toContain(`127.0.0.1:${downPort}`);
    });
  }

  it("ends a stream whose upstream drops the connection with an error event naming the request id and no socket detail, and logs the detail", async () => {
    const port = (cutting.address() as AddressInfo).port;
    const url = await gatewayTo(`http://127.0.0.1:${port}/v1`);
    for (const path of ["/v1/chat/completions", "/v1/responses"]) {
      const res = await post(url, path, path === "/v1/responses" ? { model: "m1", input: "hi", stream: true } : chat(true));
      const id = res.headers.get("x-request-id")!;
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toContain("UPSTREAM_FAILED");
      expect(text).toContain(`the upstream's connection failed while it was answering (request id ${id})`);
      expectNoNetworkDetail(text, port);
      await expect.poll(() => logLineOf(id)).toBeDefined();
      expect(logLineOf(id)).toMatch(/other side closed|terminated|socket/i);
    }
  });
});
