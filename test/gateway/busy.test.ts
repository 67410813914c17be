/**
 * A gateway whose guests cannot take more work: the request over the executor's cap is
 * answered at once with 503 and retry-after, as a connection over the connection cap is, so
 * OpenAI clients retry it, never told that retrying cannot help.
 */
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../host/index.js";
import { createGateway, GatewayKeys } from "../../host/gateway/index.js";
import { BACKSTOP_FUEL, fixture } from "../helpers/fixtures.js";
import { callsHeld } from "../helpers/lanes.js";
import { until } from "../helpers/until.js";
import { startStubUpstream, type StubUpstream } from "./upstream-stub.js";

let host: Host;
let keys: GatewayKeys;
let stub: StubUpstream;
let app: ReturnType<typeof createGateway>;
let url = "";
let key = "";

beforeAll(async () => {
  host = createHost({ workers: 1, maxQueue: 0 });
  await host.loadPlugin({ id: "looper", version: "1.0.0", wasm: fixture("loop"), limits: { timeoutMs: 400, fuel: BACKSTOP_FUEL } });
  host.activate({ revision: 1, bindings: [{ id: "slow", hookRef: "looper@1.0.0", point: "model.chat.before", timeoutMs: 400, failurePolicy: "fail-closed" }] });
  keys = new GatewayKeys(":memory:");
  key = (await keys.create({ spaceId: "space-a" })).key;
  stub = await startStubUpstream();
  app = createGateway({ host, keys, upstream: { baseUrl: `${stub.url}/v1` }, logger: false });
  await app.listen({ port: 0, host: "127.0.0.1" });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  await host.sandbox.ready();
});

afterAll(async () => {
  await app?.close();
  await stub?.close();
  await keys?.close();
  await host?.close();
});

const chat = () => fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }) });

describe("a gateway over its executor's cap", () => {
  it("answers the request it cannot run 503 QUEUE_FULL with retry-after, at once", async () => {
    // One call runs (the loop, until its 400 ms limit), one waits on the worker behind it; the queue holds none.
    let runningDone = false;
    const first = chat().then((r) => { runningDone = true; return r; });
    await until(() => callsHeld(host.sandbox) === 1);
    const second = chat();
    await until(() => callsHeld(host.sandbox) === 2);
    const res = await chat();
    // Refused without waiting for the running call to end.
    expect(runningDone).toBe(false);
    const body = await res.json() as { error: { sluice_code: string; type: string } };
    expect({ status: res.status, retryAfter: res.headers.get("retry-after"), shouldRetry: res.headers.get("x-should-retry"), code: body.error.sluice_code, type: body.error.type })
      .toEqual({ status: 503, retryAfter: "1", shouldRetry: null, code: "QUEUE_FULL", type: "server_error" });
    await Promise.all((await Promise.all([first, second])).map((r) => r.arrayBuffer()));
  });
});
