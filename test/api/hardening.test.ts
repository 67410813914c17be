/**
 * The management API against an attacker: a web page on the operator's
 * machine, a plugin author's config schema, a slow client, a token guesser.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createApiServer, startApiServer } from "../../host/api/server.js";
import { defaultMaxConnections } from "../../host/http/server-limits.js";
import { isSluiceError } from "../../host/errors/sluice-error.js";
import { Registry } from "../../host/registry/registry.js";
import { fixture, manifestYaml, tempDir, toolPayload } from "../registry/fixtures.js";
import { auth, call, json, raw, serveApi, socketTo, TOKEN, type Served } from "./server-helpers.js";

const running: Served[] = [];
async function serve(options: Parameters<typeof serveApi>[0] = {}): Promise<Served> {
  const s = await serveApi(options);
  running.push(s);
  return s;
}
afterEach(async () => { for (const s of running.splice(0)) await s.close(); });

const upload = (manifest: string, wasm = fixture("continue")) => ({ manifest, wasm_base64: Buffer.from(wasm).toString("base64") });

/** Publishes two releases of one binding and activates the second. */
async function twoReleases(s: Served): Promise<void> {
  expect((await call(s, "POST", "/api/v1/plugins", upload(manifestYaml()))).status).toBe(201);
  expect((await call(s, "POST", "/api/v1/bindings", { id: "b", hook_ref: "clamp@1.0.0", point: "tool.before", config: { max_limit: 1 } })).status).toBe(201);
  expect((await call(s, "POST", "/api/v1/releases", { activate: true })).status).toBe(201);
  // A second revision needs a change: an unchanged draft publishes nothing.
  expect((await call(s, "PUT", "/api/v1/bindings/b", { hook_ref: "clamp@1.0.0", point: "tool.before", config: { max_limit: 2 } })).status).toBe(200);
  expect((await call(s, "POST", "/api/v1/releases", { activate: true })).status).toBe(201);
}

describe("a web page on the operator's machine", () => {
  it("cannot reach the API under its own host name (DNS rebinding), even with the token", async () => {
    const s = await serve({ gatewayKeys: new (await import("../../host/keys/keys.js")).GatewayKeys(":memory:") });
    for (const [method, url] of [["POST", "/api/v1/gateway/keys"], ["GET", "/api/v1/operations"]] as const) {
      const res = await raw(s, method, url, { ...json, host: `attacker.example:${s.port}` }, method === "POST" ? JSON.stringify({ space_id: "s1" }) : undefined);
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 403, code: "HOST_NOT_ALLOWED" });
    }
    expect((await raw(s, "GET", "/api/v1/operations", { ...auth, host: `127.0.0.1:${s.port + 1}` })).status).toBe(403);
    for (const host of [`127.0.0.1:${s.port}`, `localhost:${s.port}`, `[::1]:${s.port}`]) {
      expect((await raw(s, "GET", "/api/v1/operations", { ...auth, host })).status, host).toBe(200);
    }
  });

  it("accepts the names given with allowedHosts", async () => {
    const s = await serve({ allowedHosts: ["sluice.internal"] });
    expect((await raw(s, "GET", "/api/v1/status", { ...auth, host: `sluice.internal:${s.port}` })).status).toBe(200);
  });

  it("cannot activate an older release with a cross-origin or text/plain POST", async () => {
    const s = await serve();
    await twoReleases(s);
    const host = `127.0.0.1:${s.port}`;
    const attempts: [Record<string, string>, string | undefined, number, string][] = [
      [{ host, origin: "http://evil.example", "content-type": "application/json" }, "{}", 403, "ORIGIN_NOT_ALLOWED"],
      [{ ...auth, host, origin: "http://evil.example" }, undefined, 403, "ORIGIN_NOT_ALLOWED"],
      [{ ...auth, host, origin: "null" }, undefined, 403, "ORIGIN_NOT_ALLOWED"],
      [{ ...auth, host, "sec-fetch-site": "cross-site" }, undefined, 403, "ORIGIN_NOT_ALLOWED"],
      [{ ...auth, host, "content-type": "text/plain" }, "{}", 415, "MEDIA_TYPE_UNSUPPORTED"],
      [{ ...auth, host, "content-type": "application/x-www-form-urlencoded" }, "a=1", 415, "MEDIA_TYPE_UNSUPPORTED"],
    ];
    for (const [headers, body, status, code] of attempts) {
      const res = await raw(s, "POST", "/api/v1/releases/1/activate", headers, body);
      expect({ status: res.status, code: res.body.error.code }).toEqual({ status, code });
    }
    expect(await s.registry.activeRevision()).toBe(2);
    // A page of the server's own origin (there are none today) is not refused.
    expect((await raw(s, "POST", "/api/v1/releases/1/activate", { ...auth, host, origin: `http://${host}` })).status).toBe(200);
  });
});

describe("the token", () => {
  it("is refused when shorter than 32 characters", async () => {
    const registry = await Registry.open({ dataDir: tempDir(), hostOptions: { workers: 1 } });
    try {
      for (const token of ["short", "x".repeat(31)]) {
        const err = await startApiServer({ registry, token, port: 0 }).catch((e: unknown) => e);
        expect(isSluiceError(err, "CONFIG_INVALID")).toBe(true);
        expect(isSluiceError(await createApiServer({ registry, token }).catch((e: unknown) => e), "CONFIG_INVALID")).toBe(true);
      }
    } finally {
      await registry.close();
    }
  });

  it("is required on every route of the OpenAPI document, /metrics and the document itself", async () => {
    const s = await serve({ authFailures: { max: 1_000 } });
    const doc = await call(s, "GET", "/api/v1/openapi.json");
    const routes = Object.entries(doc.body.paths as Record<string, Record<string, unknown>>).flatMap(([p, methods]) => Object.keys(methods).map((m) => [m.toUpperCase(), p.replace(/\{[^}]+\}/g, "x")] as const));
    expect(routes.length).toBeGreaterThan(20);
    for (const [method, url] of [...routes, ["GET", "/metrics"] as const, ["GET", "/api/v1/openapi.json"] as const]) {
      const res = await raw(s, method, url, { host: `127.0.0.1:${s.port}` });
      expect({ route: `${method} ${url}`, status: res.status }).toEqual({ route: `${method} ${url}`, status: 401 });
    }
    // Compared whole: a token that differs only in its last character is as wrong as any other.
    expect((await raw(s, "GET", "/api/v1/status", { authorization: `Bearer ${TOKEN.slice(0, -1)}x`, host: `127.0.0.1:${s.port}` })).status).toBe(401);
  });

  it("limits failed authentications per address and token: a script looping on a wrong token is refused, the right token from the same address is not", async () => {
    const s = await serve({ authFailures: { max: 5, windowMs: 60_000 } });
    const host = `127.0.0.1:${s.port}`;
    const wrong = { authorization: "Bearer wrong-wrong-wrong-wrong-wrong-wrong", host };
    for (let i = 0; i < 5; i++) expect((await raw(s, "GET", "/api/v1/status", wrong)).status).toBe(401);
    const limited = await raw(s, "GET", "/api/v1/status", wrong);
    expect({ status: limited.status, code: limited.body.error.code }).toEqual({ status: 429, code: "RATE_LIMITED" });
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect((await raw(s, "GET", "/api/v1/status", { ...auth, host })).status).toBe(200);
  });

  it("counts a wrong token once whatever else the request varies (headers or query the API does not read)", async () => {
    const s = await serve({ authFailures: { max: 5, windowMs: 60_000 } });
    const host = `127.0.0.1:${s.port}`;
    const wrong = (i: number) => ({ authorization: "Bearer wrong-wrong-wrong-wrong-wrong-wrong", "x-api-key": `decoy-${i}`, "x-goog-api-key": `decoy-${i}`, host });
    for (let i = 0; i < 5; i++) expect((await raw(s, "GET", `/api/v1/status?key=${i}`, wrong(i))).status).toBe(401);
    const limited = await raw(s, "GET", "/api/v1/status?key=5", wrong(5));
    expect({ status: limited.status, code: limited.body.error.code }).toEqual({ status: 429, code: "RATE_LIMITED" });
  });

  it("lets a correct token through while the address is under its limit", async () => {
    const s = await serve({ authFailures: { max: 5, windowMs: 60_000 } });
    const host = `127.0.0.1:${s.port}`;
    for (let i = 0; i < 4; i++) await raw(s, "GET", "/api/v1/status", { host });
    expect((await raw(s, "GET", "/api/v1/status", { ...auth, host })).status).toBe(200);
  });
});

describe("slow clients", () => {
  it("closes the connection of an unauthenticated request that sends its body slowly, right after the 401", async () => {
    const s = await serve();
    const { socket, received, closed } = await socketTo(s);
    socket.write(`POST /api/v1/plugins HTTP/1.1\r\nhost: 127.0.0.1:${s.port}\r\nauthorization: Bearer wrong\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{`);
    const drip = setInterval(() => { if (!socket.destroyed) socket.write("a"); }, 200);
    try {
      const ms = await closed;
      expect(ms).toBeLessThan(2_000);
      expect(received()).toMatch(/^HTTP\/1\.1 401/);
      expect(received()).toMatch(/connection: close/i);
    } finally {
      clearInterval(drip);
    }
  });

  it("ends a request whose body does not arrive within the request timeout", async () => {
    const s = await serve({ limits: { requestTimeoutMs: 1_500, headersTimeoutMs: 1_000 } });
    const { socket, received, closed } = await socketTo(s);
    socket.write(`POST /api/v1/bindings HTTP/1.1\r\nhost: 127.0.0.1:${s.port}\r\nauthorization: Bearer ${TOKEN}\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{`);
    const drip = setInterval(() => { if (!socket.destroyed) socket.write(" "); }, 200);
    try {
      const ms = await closed;
      expect(ms).toBeLessThan(4_000);
      expect(received()).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      clearInterval(drip);
    }
  });

  it("ends a request whose headers do not arrive within the header timeout", async () => {
    const s = await serve({ limits: { requestTimeoutMs: 5_000, headersTimeoutMs: 1_000 } });
    const { socket, closed } = await socketTo(s);
    socket.write(`GET /api/v1/status HTTP/1.1\r\nhost: 127.0.0.1:${s.port}\r\n`);
    const drip = setInterval(() => { if (!socket.destroyed) socket.write("x-slow: 1\r\n"); }, 200);
    try {
      expect(await closed).toBeLessThan(3_000);
    } finally {
      clearInterval(drip);
    }
  });

  it("derives the default connection cap from what the descriptor limit holds: 10 000 only where the limit cannot be read", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "sluice-limits-"));
    const limits = (soft: string) => {
      const file = path.join(dir, soft);
      writeFileSync(file, `Limit                     Soft Limit           Hard Limit           Units\nMax open files            ${soft}              ${soft}              files\n`);
      return defaultMaxConnections(file);
    };
    // A reserve for the rest of the process, then a quarter each: gateway connections, their
    // upstream ones, the API's, and those answered 503 over the cap.
    expect(limits("1048576")).toBe((1048576 - 512) / 4);
    expect(limits("65536")).toBe((65536 - 512) / 4);
    // Not 10,000 where 1,024 descriptors cannot hold them: past the limit connections are reset.
    expect(limits("1024")).toBe((1024 - 256) / 4);
    expect(limits("256")).toBe((256 - 128) / 4);
    expect(limits("unlimited")).toBe(1_000_000);
    expect(defaultMaxConnections(path.join(dir, "absent"))).toBe(10_000);
    rmSync(dir, { recursive: true });
  });

  it("answers a connection beyond the cap 503 CONNECTIONS_FULL with retry-after, then closes it", async () => {
    const s = await serve({ limits: { maxConnections: 2 } });
    const held = [await socketTo(s), await socketTo(s)];
    const third = await socketTo(s);
    third.socket.write(`GET /api/v1/status HTTP/1.1\r\nhost: 127.0.0.1:${s.port}\r\nauthorization: Bearer ${TOKEN}\r\n\r\n`);
    expect(await third.closed).toBeLessThan(1_000);
    expect(third.received()).toMatch(/^HTTP\/1\.1 503 [^]*\r\nretry-after: 1\r\n[^]*"code":"CONNECTIONS_FULL"/i);
    // A connection under the cap is served as before.
    held[0]!.socket.write(`GET /api/v1/status HTTP/1.1\r\nhost: 127.0.0.1:${s.port}\r\nauthorization: Bearer ${TOKEN}\r\nconnection: close\r\n\r\n`);
    await held[0]!.closed;
    expect(held[0]!.received()).toMatch(/^HTTP\/1\.1 200 /);
    for (const h of held) h.socket.destroy();
  });
});

describe("a plugin author's config schema", () => {
  const EVIL = "^(a+)+$";
  // 27 characters took 4.3 s with V8's engine; each more doubles it.
  const attack = "a".repeat(29) + "!";
  const cases: [string, Record<string, unknown>, unknown, "bind" | "test"][] = [
    ["pattern", { type: "object", properties: { s: { type: "string", pattern: EVIL } } }, { s: attack }, "bind"],
    ["propertyNames", { type: "object", propertyNames: { pattern: EVIL } }, { [attack]: 1 }, "bind"],
    ["patternProperties", { type: "object", patternProperties: { [EVIL]: { type: "string" } }, additionalProperties: { type: "integer" } }, { [attack]: "x" }, "bind"],
    ["pattern through the dry-run /test route", { type: "object", properties: { s: { type: "string", pattern: EVIL } } }, { s: attack }, "test"],
  ];
  for (const [name, schema, config, route] of cases) {
    it(`cannot freeze the process with a catastrophic ${name}: GET /status stays fast meanwhile`, async () => {
      const s = await serve();
      expect((await call(s, "POST", "/api/v1/plugins", upload(manifestYaml({ config_schema: schema })))).status).toBe(201);
      const bad = route === "bind"
        ? call(s, "POST", "/api/v1/bindings", { id: "b", hook_ref: "clamp@1.0.0", point: "tool.before", config })
        : call(s, "POST", "/api/v1/plugins/clamp/versions/1.0.0/test", { point: "tool.before", payload: toolPayload, config });
      // Probes every 10 ms until the bad request is answered, as hook and gateway calls would arrive.
      let answered = false;
      const latencies: number[] = [];
      const probing = (async () => {
        while (!answered) {
          const started = performance.now();
          expect((await call(s, "GET", "/api/v1/status")).status).toBe(200);
          latencies.push(performance.now() - started);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      })();
      const answer = await bad;
      answered = true;
      await probing;
      expect(latencies.length).toBeGreaterThan(0);
      expect(Math.max(...latencies)).toBeLessThan(500);
      expect({ status: answer.status, code: answer.body.error.code }).toEqual({ status: 400, code: "PLUGIN_CONFIG_INVALID" });
    });
  }

  it("a $ref cycle is refused at upload, and a 200,000-deep config is a 400 with a code", async () => {
    const s = await serve();
    const cyclic = { $defs: { n: { type: "object", properties: { a: { $ref: "#/$defs/n" } } } }, $ref: "#/$defs/n" };
    const refused = await call(s, "POST", "/api/v1/plugins", upload(manifestYaml({ config_schema: cyclic })));
    expect({ status: refused.status, code: refused.body.error.code }).toEqual({ status: 400, code: "MANIFEST_INVALID" });
    expect((await call(s, "POST", "/api/v1/plugins", upload(manifestYaml({ config_schema: { type: "object" } })))).status).toBe(201);
    const deep = `{"id":"b","hook_ref":"clamp@1.0.0","point":"tool.before","config":{"a":${"[".repeat(200_000)}1${"]".repeat(200_000)}}}`;
    const res = await raw(s, "POST", "/api/v1/bindings", { ...json, host: `127.0.0.1:${s.port}` }, deep);
    expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 400, code: "REQUEST_INVALID" });
  });

  it("a config_schema nested more than 64 deep is a 400 MANIFEST_INVALID", async () => {
    const s = await serve();
    let schema: Record<string, unknown> = { type: "object" };
    for (let i = 0; i < 70; i++) schema = { type: "object", properties: { a: schema } };
    const res = await call(s, "POST", "/api/v1/plugins", upload(manifestYaml({ config_schema: schema })));
    expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 400, code: "MANIFEST_INVALID" });
  });
});

describe("what errors reveal", () => {
  it("a missing artifact's error names no host path, and the 5xx is logged with its cause", async () => {
    const lines: string[] = [];
    const stream = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
    const s = await serve({ logger: { level: "error", stream } });
    const up = await call(s, "POST", "/api/v1/plugins", upload(manifestYaml()));
    rmSync(path.join(s.dataDir, "artifacts", "sha256", `${up.body.plugin.sha256}.wasm`));
    const res = await call(s, "POST", "/api/v1/plugins/clamp/versions/1.0.0/test", { point: "tool.before", payload: toolPayload, config: { max_limit: 1 } });
    expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 503, code: "STORE_UNAVAILABLE" });
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(s.dataDir);
    expect(text).not.toMatch(/\/tmp\/|\/home\/|\/work\//);
    expect(lines.join("")).toMatch(/STORE_UNAVAILABLE|cannot be read/);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ level: 50, status: 503 });
  });
});

describe("checks that already held", () => {
  it("refuses a body over the limit with 413 before reading it all", async () => {
    const s = await serve({ bodyLimit: 2048 });
    const res = await raw(s, "POST", "/api/v1/bindings", { ...json, host: `127.0.0.1:${s.port}` }, JSON.stringify({ id: "x".repeat(4096) }));
    expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 413, code: "PAYLOAD_TOO_LARGE" });
  });

  it("a YAML merge key merges nothing, and an alias is refused", async () => {
    const s = await serve();
    const merged = `${manifestYaml()}\nbase: &b { id: other }\n`;
    expect((await call(s, "POST", "/api/v1/plugins", upload(merged))).body.error.code).toBe("MANIFEST_INVALID");
    const mergeKey = manifestYaml().replace("id: clamp", "<<: { id: other }\nid: clamp");
    const res = await call(s, "POST", "/api/v1/plugins", upload(mergeKey));
    expect({ status: res.status, code: res.body.error.code }).toEqual({ status: 400, code: "MANIFEST_INVALID" });
  });

  it("ids with path characters never reach the file system", async () => {
    const s = await serve();
    for (const url of ["/api/v1/plugins/..%2F..%2Fetc/versions/1.0.0", "/api/v1/plugins/x/versions/..%2F1", "/api/v1/bindings/..%2Fb"]) {
      const res = await call(s, "GET", url);
      expect({ url, status: res.status, code: res.body.error.code }).toEqual({ url, status: 400, code: "ID_INVALID" });
    }
  });

  it("token file mode: a generated token is written 0600 (read back by local clients)", async () => {
    const registry = await Registry.open({ dataDir: tempDir(), hostOptions: { workers: 1 } });
    const server = await startApiServer({ registry, port: 0, logger: false });
    try {
      expect(readFileSync(server.tokenFile!, "utf8").trim()).toBe(server.token);
    } finally {
      await server.close();
      await registry.close();
    }
  });
});
