/**
 * /v1/chat/completions and /v1/responses streamed through pii-redact at model.chat.chunk and
 * model.chat.after (loaded from its hook.yaml, which declares `stream_rewrite: chunk`): the
 * client gets its first text before the upstream sends the rest (abi/README.md §4.3), and no
 * address leaves.
 */
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import OpenAI from "openai";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../host/index.js";
import { createGateway, GatewayKeys } from "../../host/gateway/index.js";
import { pluginInput } from "../../host/registry/plugin-input.js";
import { gatedSource, type Gate } from "../helpers/gated-source.js";
import { pluginWasm, repoRoot } from "../helpers/fixtures.js";

let host: Host;
let keys: GatewayKeys;
let app: FastifyInstance;
let upstream: Server;
let client: OpenAI;
/** The gate of the request the upstream is answering now. */
let gate: Gate;
const FIRST = "Hello there. Write to alice.smith@exa";
const REST = ["mple.com", " today."];

beforeAll(async () => {
  host = createHost({ workers: 2 });
  for (const id of ["pii-redact", "answer-normalize"]) await host.loadPlugin(pluginInput(readFileSync(`${repoRoot}plugins/${id}/hook.yaml`, "utf8"), pluginWasm(id)));
  // An OpenAI-compatible upstream that streams its first piece, then waits for the test's gate.
  upstream = createServer(async (req, res) => {
    for await (const _ of req) { /* the body is not needed */ }
    res.writeHead(200, { "content-type": "text/event-stream" });
    const send = (delta: Record<string, unknown>, finish: string | null = null) =>
      res.write(`data: ${JSON.stringify({ id: "chatcmpl-gated", object: "chat.completion.chunk", created: 1, model: "m1", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
    send({ role: "assistant", content: FIRST });
    await gate.wait();
    for (const content of REST) send({ content });
    send({}, "stop");
    res.end("data: [DONE]\n\n");
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  keys = new GatewayKeys(":memory:");
  const created = await keys.create({ spaceId: "space-a", name: "tests" });
  app = createGateway({ host, keys, upstream: { baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`, apiKey: "sk-up", timeoutMs: 5_000 }, logger: false });
  await app.listen({ port: 0, host: "127.0.0.1" });
  client = new OpenAI({ apiKey: created.key, baseURL: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`, maxRetries: 0 });
});
afterAll(async () => {
  await app.close();
  upstream.closeAllConnections();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
  await keys.close();
  await host.close();
});

const REDACTION = [
  { id: "redact-answer", hookRef: "pii-redact@1.0.0", point: "model.chat.after" as const, priority: 40, timeoutMs: 2_000 },
  { id: "redact-stream", hookRef: "pii-redact@1.0.0", point: "model.chat.chunk" as const, priority: 10, timeoutMs: 2_000 },
];
let revision = 0;

/** Each streaming route's text deltas as the official client reads them, each told to the gate as it arrives. */
const ROUTES: Record<string, () => Promise<string[]>> = {
  "/v1/chat/completions": async () => {
    const stream = await client.chat.completions.create({ model: "m1", messages: [{ role: "user", content: "where?" }], stream: true });
    const texts: string[] = [];
    for await (const c of stream) {
      const text = c.choices[0]?.delta?.content ?? "";
      if (text !== "") texts.push(text);
      gate.read(text);
    }
    return texts;
  },
  "/v1/responses": async () => {
    const stream = await client.responses.create({ model: "m1", input: "where?", stream: true });
    const texts: string[] = [];
    for await (const e of stream) {
      if (e.type !== "response.output_text.delta") continue;
      if (e.delta !== "") texts.push(e.delta);
      gate.read(e.delta);
    }
    return texts;
  },
};

describe.each(Object.entries(ROUTES))("gateway %s: a stream through pii-redact at chunk and after", (_route, streamed) => {
  it("sends the client its first text before the upstream sends the rest, with no piece of the address", async () => {
    host.activate({ revision: ++revision, bindings: REDACTION });
    gate = gatedSource();
    const texts = await streamed();
    expect(gate.order).toEqual(["consumer read", "source sent the rest"]);
    expect(texts[0]).toBe("Hello there. Write to ");
    expect(texts.join("")).toBe("Hello there. Write to [email] today.");
    for (const t of texts) for (const raw of ["alice", "smith", "exa", "mple", "@"]) expect(t).not.toContain(raw);
  });

  it("still holds the text back when an after hook without a chunk twin may rewrite (answer-normalize)", async () => {
    host.activate({ revision: ++revision, bindings: [...REDACTION, { id: "normalize", hookRef: "answer-normalize@1.0.0", point: "model.chat.after", priority: 30, timeoutMs: 2_000 }] });
    gate = gatedSource(300);
    const texts = await streamed();
    expect(gate.order).toEqual(["source gave up waiting", "source sent the rest", "consumer read"]);
    expect(texts).toEqual(["Hello there. Write to [email] today."]);
  });
});
