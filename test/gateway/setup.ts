/** One gateway under test: a host with the contract guest and reference plugins, a key, the stub upstream and an official OpenAI client. */
import OpenAI from "openai";
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

export interface GatewayUnderTest {
  host: Host;
  keys: GatewayKeys;
  stub: StubUpstream;
  app: FastifyInstance;
  url: string;
  key: { key: string; id: string };
  client: OpenAI;
  /** Activates a release of these bindings (contract guest unless hookRef says otherwise). */
  bind(bindings: (Omit<BindingInput, "hookRef"> & { hookRef?: string })[]): void;
  close(): Promise<void>;
}

export async function startGateway(options: { timeoutMs?: number; maxBytes?: number; authFailures?: { max: number }; limits?: Partial<ServerLimits>; records?: OperationStore; logger?: GatewayOptions["logger"] } = {}): Promise<GatewayUnderTest> {
  const host = createHost({ workers: 2, ...(options.records ? { records: options.records } : {}) });
  await host.loadPlugin({ id: "contract", version: "1.0.0", wasm: fixture("contract-hook") });
  host.registerHook("contract", twin);
  for (const id of ["prompt-guard", "pii-redact"]) await host.loadPlugin({ id, version: "1.0.0", wasm: pluginWasm(id) });
  await host.loadPlugin({ id: "response-cache", version: "1.0.0", wasm: pluginWasm("response-cache"), capabilities: ["kv"] });
  const keys = new GatewayKeys(":memory:");
  const created = await keys.create({ spaceId: "space-a", name: "tests" });
  const stub = await startStubUpstream();
  const app = createGateway({ host, keys, upstream: { baseUrl: `${stub.url}/v1`, apiKey: "sk-upstream-secret", timeoutMs: options.timeoutMs ?? 400, ...(options.maxBytes ? { maxBytes: options.maxBytes } : {}) }, logger: options.logger ?? false, ...(options.limits ? { limits: options.limits } : {}), ...(options.authFailures ? { authFailures: options.authFailures } : {}) });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  let revision = 0;
  return {
    host, keys, stub, app, url,
    key: { key: created.key, id: created.record.id },
    client: new OpenAI({ apiKey: created.key, baseURL: `${url}/v1`, maxRetries: 0 }),
    bind: (bindings) => { host.activate({ revision: ++revision, bindings: bindings.map((b) => ({ hookRef: "contract@1.0.0", timeoutMs: 2_000, ...b })) }); },
    close: async () => {
      await app.close();
      await stub.close();
      await keys.close();
      await host.close();
    },
  };
}
