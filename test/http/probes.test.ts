/**
 * Liveness and readiness probes (host/http/probes.ts) on the management API and the gateway:
 * what an orchestrator or a load balancer asks, without a token or key, under any Host name;
 * and nothing beyond the status in the answer.
 */
import { request } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../host/index.js";
import { createGateway, GatewayKeys } from "../../host/gateway/index.js";
import { raw, serveApi, type Served } from "../api/server-helpers.js";

let api: Served;
beforeAll(async () => { api = await serveApi(); });
afterAll(async () => { await api?.close(); });

const probe = (path: string, host = "10.1.2.3:8787") => raw(api, "GET", path, { host });

describe("the management API's probes", () => {
  it("answer without a token, under a Host the API refuses, with the status alone and no caching", async () => {
    const health = await probe("/healthz");
    const ready = await probe("/readyz");
    expect([health.status, health.body, health.headers["cache-control"]]).toEqual([200, { status: "ok" }, "no-store"]);
    expect([ready.status, ready.body, ready.headers["cache-control"]]).toEqual([200, { status: "ready" }, "no-store"]);
    // The exemption is the probes': the same Host and no token on an API route are refused.
    const status = await probe("/api/v1/status");
    expect([status.status, status.body.error.code]).toEqual([403, "HOST_NOT_ALLOWED"]);
    const unauthenticated = await probe("/api/v1/status", `127.0.0.1:${api.port}`);
    expect([unauthenticated.status, unauthenticated.body.error.code]).toEqual([401, "UNAUTHORIZED"]);
  });

  it("say not ready (503, retry-after) when the database fails, without its error's text", async () => {
    const readActive = api.registry.activeRevision.bind(api.registry);
    api.registry.activeRevision = async () => { throw new Error("connect ECONNREFUSED postgres://sluice:SECRET-pw@db.internal:5432/sluice"); };
    try {
      const ready = await probe("/readyz");
      expect([ready.status, ready.body, ready.headers["retry-after"]]).toEqual([503, { status: "not_ready", reason: "store_unavailable" }, "1"]);
      expect(JSON.stringify(ready)).not.toMatch(/SECRET|db\.internal|ECONNREFUSED/);
      // Liveness is the process's, not the database's: a restart would not mend it.
      expect((await probe("/healthz")).status).toBe(200);
    } finally {
      api.registry.activeRevision = readActive;
    }
    expect((await probe("/readyz")).status).toBe(200);
  });

  it("say not ready when the database does not answer, rather than keep the probe waiting", async () => {
    const readActive = api.registry.activeRevision.bind(api.registry);
    let late: (() => void) | undefined;
    // Answers (with a failure) only after the probe gave up: not an unhandled rejection.
    api.registry.activeRevision = () => new Promise((_resolve, reject) => { late = () => reject(new Error("too late")); });
    try {
      const ready = await probe("/readyz");
      expect([ready.status, ready.body]).toEqual([503, { status: "not_ready", reason: "store_unavailable" }]);
      late!();
    } finally {
      api.registry.activeRevision = readActive;
    }
  });
});

describe("the gateway's probes", () => {
  let host: Host;
  let keys: GatewayKeys;
  let app: ReturnType<typeof createGateway>;
  let url = "";
  let storeUp = true;

  beforeAll(async () => {
    host = createHost({ workers: 1 });
    keys = new GatewayKeys(":memory:");
    app = createGateway({ host, keys, upstream: { baseUrl: "http://127.0.0.1:9/v1" }, logger: false, ready: async () => { if (!storeUp) throw new Error("down"); } });
    await app.listen({ port: 0, host: "127.0.0.1" });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => { await app?.close(); await keys?.close(); await host?.close(); });

  it("answer without a gateway key; every other route still wants one", async () => {
    const health = await fetch(`${url}/healthz`);
    const ready = await fetch(`${url}/readyz`);
    expect([health.status, await health.json(), ready.status, await ready.json()]).toEqual([200, { status: "ok" }, 200, { status: "ready" }]);
    const chat = await fetch(`${url}/v1/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(chat.status).toBe(401);
    await chat.arrayBuffer();
  });

  it("are answered on a connection over the cap, which is then closed; any other request there is 503 CONNECTIONS_FULL", async () => {
    const capped = createGateway({ host, keys, upstream: { baseUrl: "http://127.0.0.1:9/v1" }, logger: false, limits: { maxConnections: 2 } });
    await capped.listen({ port: 0, host: "127.0.0.1" });
    const port = (capped.server.address() as AddressInfo).port;
    const held: Socket[] = [];
    try {
      for (let i = 0; i < 2; i++) held.push(await new Promise<Socket>((resolve) => { const s = connect(port, "127.0.0.1", () => resolve(s)); }));
      const ask = (method: string, path: string) => new Promise<{ status: number; connection?: string; body: string }>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port, method, path, agent: false }, (res) => {
          let body = "";
          res.on("data", (d: Buffer) => { body += d; });
          res.on("end", () => resolve({ status: res.statusCode!, ...(res.headers.connection ? { connection: res.headers.connection } : {}), body }));
        });
        req.on("error", reject);
        req.end();
      });
      // Liveness refused for being busy would have the orchestrator restart a loaded server.
      expect(await ask("GET", "/healthz")).toEqual({ status: 200, connection: "close", body: JSON.stringify({ status: "ok" }) });
      expect(await ask("GET", "/readyz?full=1")).toEqual({ status: 200, connection: "close", body: JSON.stringify({ status: "ready" }) });
      const other = await ask("GET", "/healthzz");
      expect([other.status, JSON.parse(other.body).error.code]).toEqual([503, "CONNECTIONS_FULL"]);
    } finally {
      for (const s of held) s.destroy();
      await capped.close();
    }
  });

  it("follow the readiness check it is given", async () => {
    storeUp = false;
    const down = await fetch(`${url}/readyz`);
    storeUp = true;
    expect([down.status, down.headers.get("retry-after"), await down.json()]).toEqual([503, "1", { status: "not_ready", reason: "store_unavailable" }]);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
  });
});
