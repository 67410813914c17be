/**
 * A streamed call leaves its upstream connection to the pool: the gateway reads the
 * upstream's body to its end after `[DONE]` instead of cutting it (which closed the
 * connection, so every stream paid a new one). An upstream that keeps its body open past
 * `[DONE]` is let go at once after a short grace, and nothing it sends then reaches the client.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { createHost, type Host } from "../../host/index.js";
import { createGateway, GatewayKeys } from "../../host/gateway/index.js";
import { DONE_GRACE_MS } from "../../host/gateway/upstream.js";
import { until } from "../helpers/until.js";

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

let connections = 0;
const lingering: ServerResponse[] = [];
let lingeringClosed = 0;
const upstream = createServer(async (req, res) => {
  let text = "";
  for await (const c of req) text += c;
  res.writeHead(200, { "content-type": "text/event-stream" });
  res.write(chunk({ role: "assistant", content: "" }));
  res.write(chunk({ content: "Hello " }));
  if (text.includes("[linger]")) {
    // [DONE], then the body stays open and sends more: nothing of it may reach the client.
    res.write(chunk({ content: "world" }, "stop") + "data: [DONE]\n\n");
    res.on("close", () => { lingeringClosed++; });
    lingering.push(res);
    setTimeout(() => { if (!res.destroyed) res.write(chunk({ content: " AFTER-DONE" })); }, 5);
    return;
  }
  // [DONE] first, the body's end a moment later (as upstreams that flush each event do).
  res.write(chunk({ content: "world" }, "stop") + "data: [DONE]\n\n");
  setTimeout(() => res.end(), 5);
});
upstream.on("connection", () => { connections++; });

let host: Host;
let keys: GatewayKeys;
let app: FastifyInstance;
let url: string;
let key: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  host = createHost({ workers: 1 });
  host.activate({ revision: 1, bindings: [] });
  keys = new GatewayKeys(":memory:");
  key = (await keys.create({ spaceId: "space-a", name: "t" })).key;
  app = createGateway({ host, keys, upstream: { baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`, timeoutMs: 10_000 }, logger: false });
  await app.listen({ port: 0, host: "127.0.0.1" });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of lingering) res.destroy();
  await app.close();
  await keys.close();
  await host.close();
  await new Promise((resolve) => upstream.close(resolve));
});

const stream = async (content: string): Promise<string> => {
  const res = await fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content }] }) });
  expect(res.status).toBe(200);
  return res.text();
};
const textOf = (sse: string) => sse.split("\n\n").filter((e) => e.startsWith("data: {")).map((e) => JSON.parse(e.slice(6)).choices?.[0]?.delta?.content ?? "").join("");

it("five streams one after another use one upstream connection, each answered whole", async () => {
  connections = 0;
  for (let i = 0; i < 5; i++) {
    const sse = await stream("hi");
    expect(textOf(sse)).toBe("Hello world");
    expect(sse.trimEnd().endsWith("data: [DONE]")).toBe(true);
  }
  expect(connections).toBe(1);
});

it("an upstream that keeps its body open past [DONE] is let go after the grace; what it sent after [DONE] never reaches the client", async () => {
  const t0 = performance.now();
  const sse = await stream("[linger]");
  const took = performance.now() - t0;
  expect(textOf(sse)).toBe("Hello world");
  expect(sse).not.toContain("AFTER-DONE");
  expect(sse.trimEnd().endsWith("data: [DONE]")).toBe(true);
  // Ended by the grace, not by the upstream (which would hold it until its 10 s timeout).
  expect(took).toBeLessThan(DONE_GRACE_MS + 2_000);
  // The gateway lets go of the upstream's socket when the grace ends; its close reaches the
  // upstream server in its own time (not within a fixed 50 ms on a loaded machine).
  await until(() => lingeringClosed >= 1);
  expect(lingeringClosed).toBe(1);
});
