/**
 * One gateway under test: a host with the contract guest and reference plugins, a key, the
 * stub upstream and an official OpenAI client; with `protocols`, the Anthropic and Gemini
 * stubs too, and their official clients.
 */
import OpenAI from "openai";
import type Anthropic from "@anthropic-ai/sdk";
import type { GoogleGenAI } from "@google/genai";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { createHost, type Host, type OperationStore } from "../../host/index.js";
import type { BindingInput } from "../../host/pipeline/release.js";
import { createGateway, GatewayKeys } from "../../host/gateway/index.js";
import type { GatewayOptions } from "../../host/gateway/options.js";
import { fixture, pluginWasm } from "../helpers/fixtures.js";
import { twin } from "../contract/twin.js";
import type { ServerLimits } from "../../host/http/server-limits.js";
import { startStubUpstream, type StubUpstream } from "./upstream-stub.js";
import { startAnthropicStub, type AnthropicStub } from "./anthropic-stub.js";
import { startGeminiStub, type GeminiStub } from "./gemini-stub.js";

export interface GatewayUnderTest {
  host: Host;
  keys: GatewayKeys;
  stub: StubUpstream;
  app: FastifyInstance;
  url: string;
  key: { key: string; id: string };
  client: OpenAI;
  /** With `protocols`: the Anthropic stub and an official Anthropic client holding the gateway key. */
  anthropic: { stub: AnthropicStub; client: Anthropic } | undefined;
  /** With `protocols`: the Gemini stub and an official @google/genai client holding the gateway key. */
  gemini: { stub: GeminiStub; client: GoogleGenAI } | undefined;
  /** Activates a release of these bindings (contract guest unless hookRef says otherwise). */
  bind(bindings: (Omit<BindingInput, "hookRef"> & { hookRef?: string })[]): void;
  close(): Promise<void>;
}

export async function startGateway(options: { timeoutMs?: number; maxBytes?: number; authFailures?: { max: number }; limits?: Partial<ServerLimits>; records?: OperationStore; logger?: GatewayOptions["logger"]; protocols?: boolean } = {}): Promise<GatewayUnderTest> {
  const host = createHost({ workers: 2, ...(options.records ? { records: options.records } : {}) });
  await host.loadPlugin({ id: "contract", version: "1.0.0", wasm: fixture("contract-hook") });
  host.registerHook("contract", twin);
  for (const id of ["prompt-guard", "pii-redact"]) await host.loadPlugin({ id, version: "1.0.0", wasm: pluginWasm(id) });
  await host.loadPlugin({ id: "response-cache", version: "1.1.0", wasm: pluginWasm("response-cache"), capabilities: ["kv"] });
  const keys = new GatewayKeys(":memory:");
  const created = await keys.create({ spaceId: "space-a", name: "tests" });
  const stub = await startStubUpstream();
  const anthropicStub = options.protocols ? await startAnthropicStub() : undefined;
  const geminiStub = options.protocols ? await startGeminiStub() : undefined;
  const timeouts = { timeoutMs: options.timeoutMs ?? 400, ...(options.maxBytes ? { maxBytes: options.maxBytes } : {}) };
  const app = createGateway({
    host, keys, upstream: { baseUrl: `${stub.url}/v1`, apiKey: "sk-upstream-secret", ...timeouts },
    // Given as users copy them from each vendor's docs: without the version segment.
    ...(anthropicStub ? { anthropicUpstream: { baseUrl: anthropicStub.url, apiKey: "sk-ant-upstream-secret", ...timeouts } } : {}),
    ...(geminiStub ? { geminiUpstream: { baseUrl: geminiStub.url, apiKey: "gemini-upstream-secret", ...timeouts } } : {}),
    logger: options.logger ?? false, ...(options.limits ? { limits: options.limits } : {}), ...(options.authFailures ? { authFailures: options.authFailures } : {}),
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  // Loaded only by the suites that use them: every gateway suite shares this file.
  const sdks = options.protocols ? { Anthropic: (await import("@anthropic-ai/sdk")).default, GoogleGenAI: (await import("@google/genai")).GoogleGenAI } : undefined;
  let revision = 0;
  return {
    host, keys, stub, app, url,
    key: { key: created.key, id: created.record.id },
    client: new OpenAI({ apiKey: created.key, baseURL: `${url}/v1`, maxRetries: 0 }),
    anthropic: anthropicStub && sdks ? { stub: anthropicStub, client: new sdks.Anthropic({ apiKey: created.key, baseURL: url, maxRetries: 0 }) } : undefined,
    gemini: geminiStub && sdks ? { stub: geminiStub, client: new sdks.GoogleGenAI({ apiKey: created.key, httpOptions: { baseUrl: url } }) } : undefined,
    bind: (bindings) => { host.activate({ revision: ++revision, bindings: bindings.map((b) => ({ hookRef: "contract@1.0.0", timeoutMs: 2_000, ...b })) }); },
    close: async () => {
      await app.close();
      await stub.close();
      await anthropicStub?.close();
      await geminiStub?.close();
      await keys.close();
      await host.close();
    },
  };
}
