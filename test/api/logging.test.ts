/**
 * `sluice serve`'s log, as an operator reads it: JSON lines, a request id on every API and
 * gateway request, every 5xx with its cause, activation, quarantine and worker restarts,
 * and none of the secrets and payload content planted in the requests.
 */
import { readFileSync } from "node:fs";
import wabtInit from "wabt";
import { createServer, type Server as HttpServer } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../registry/fixtures.js";
import { sluice, spawnSluice, stop, waitFor } from "../cli/run-cli.js";
import { BACKSTOP_FUEL } from "../helpers/fixtures.js";
import { until } from "../helpers/until.js";

const TOKEN = "api-token-SECRET-0123456789abcdefghijklmnop";
const WRONG = "wrong-token-SECRET-0123456789abcdefghijklmn";
const UPSTREAM_KEY = "sk-upstream-SECRET-key-4242";
const SECRETS = { TOKEN, WRONG, UPSTREAM_KEY, QUERY: "query-SECRET-77", PAYLOAD: "payload-SECRET-31", PROMPT: "prompt-SECRET-19", CONFIG: "config-SECRET-5", GUEST_LOG: "guest-line-SECRET-8" };

/** Logs SECRETS.GUEST_LOG (as a guest quoting its input would), then continues. */
const LOGGER_WAT = `(module
  (import "sluice_v1" "log" (func $log (param i32 i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "\\82\\a3abi\\a31.0\\a7outcome\\a8continue")
  (data (i32.const 64) "${SECRETS.GUEST_LOG}")
  (global $next (mut i32) (i32.const 8192))
  (func (export "sluice_abi_v1_0"))
  (func (export "sluice_alloc") (param $n i32) (result i32)
    (local $p i32) (local.set $p (global.get $next))
    (global.set $next (i32.add (global.get $next) (local.get $n))) (local.get $p))
  (func (export "sluice_handle") (param i32 i32) (result i64)
    (call $log (i32.const 1) (i32.const 64) (i32.const ${SECRETS.GUEST_LOG.length}))
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 26))))`;

let upstream: HttpServer;
let child: ReturnType<typeof spawnSluice>;
let log = "";
let api = "";
let gateway = "";
const requestIds: string[] = [];
let probes: number[] = [];

async function call(url: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
  const res = await fetch(url, { ...init, headers: { authorization: `Bearer ${init.token ?? TOKEN}`, ...(init.body ? { "content-type": "application/json" } : {}), ...init.headers } });
  requestIds.push(res.headers.get("x-request-id") ?? "none");
  return res;
}

const lines = () => log.trim().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);

beforeAll(async () => {
  upstream = createServer((req, res) => { req.resume(); req.on("end", () => { res.writeHead(500, { "content-type": "application/json" }); res.end(JSON.stringify({ error: { message: "upstream broke", type: "server_error" } })); }); });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}/v1`;
  const work = tempDir("sluice-log-");
  child = spawnSluice(["serve", "--port", "0", "--gateway-port", "0"], {
    SLUICE_DATA_DIR: path.join(work, "data"), SLUICE_TOKEN: TOKEN, SLUICE_WORKERS: "1", SLUICE_LOG_LEVEL: "info",
    SLUICE_UPSTREAM: upstreamUrl, SLUICE_UPSTREAM_API_KEY: UPSTREAM_KEY,
  }, work);
  child.stderr.on("data", (d: Buffer) => { log += d; });
  const out = await waitFor(child, /sluice listening on \S+/);
  api = /sluice listening on (\S+)/.exec(out)![1]!;
  gateway = /gateway listening on (\S+)\/v1/.exec(out)![1]!;
  // An orchestrator's probes, without a token or key; their lines would precede the others'.
  probes = await Promise.all([`${api}/healthz`, `${api}/readyz`, `${gateway}/healthz`, `${gateway}/readyz`].map(async (u) => (await fetch(u)).status));

  // A plugin that loops for ever at model.chat.before, fail-open, with the host's largest fuel
  // budget so its time limit ends it, not its fuel: its worker is terminated
  // at each call, and after five faults it is quarantined.
  const wasm = readFileSync(new URL("../../build/fixtures/loop.wasm", import.meta.url));
  const manifest = `id: looper\nversion: 1.0.0\nabi: "1.0"\nentry: loop.wat\npoints:\n  model.chat.before:\nlimits: { timeout_ms: 20, fuel: ${BACKSTOP_FUEL} }\nfailure_policy: fail-open\ncapability_boundary: none\nconfig_schema: { type: object, properties: { note: { type: string } } }\n`;
  expect((await call(`${api}/api/v1/plugins`, { method: "POST", body: JSON.stringify({ manifest, wasm_base64: wasm.toString("base64") }) })).status).toBe(201);
  expect((await call(`${api}/api/v1/bindings`, { method: "POST", body: JSON.stringify({ id: "loop", hook_ref: "looper@1.0.0", point: "model.chat.before", timeout_ms: 20, config: { note: SECRETS.CONFIG } }) })).status).toBe(201);
  const logger = Buffer.from((await wabtInit()).parseWat("logger.wat", LOGGER_WAT).toBinary({}).buffer);
  const loggerManifest = "id: logger\nversion: 1.0.0\nabi: \"1.0\"\nentry: logger.wat\npoints:\n  tool.before:\ncapability_boundary: none\nconfig_schema: { type: object }\n";
  expect((await call(`${api}/api/v1/plugins`, { method: "POST", body: JSON.stringify({ manifest: loggerManifest, wasm_base64: logger.toString("base64") }) })).status).toBe(201);
  expect((await call(`${api}/api/v1/bindings`, { method: "POST", body: JSON.stringify({ id: "log-tools", hook_ref: "logger@1.0.0", point: "tool.before" }) })).status).toBe(201);
  const env = { SLUICE_URL: api, SLUICE_TOKEN: TOKEN };
  expect((await sluice(["publish", "--activate"], env)).code).toBe(0);
  // The guest's line is in the author's answer, and never in the server's log (checked below).
  const called = await (await call(`${api}/api/v1/call`, { method: "POST", body: JSON.stringify({ kind: "tool", tool_id: "orders.search", arguments: {} }) })).json() as { hooks: { logs?: { lines: { message: string }[] } }[] };
  expect(called.hooks[0]!.logs!.lines[0]!.message).toBe(SECRETS.GUEST_LOG);

  expect((await call(`${api}/api/v1/status?secret=${SECRETS.QUERY}`)).status).toBe(200);
  expect((await call(`${api}/api/v1/status`, { token: WRONG })).status).toBe(401);
  expect((await call(`${api}/api/v1/plugins/looper/versions/1.0.0/test`, { method: "POST", body: JSON.stringify({ point: "model.chat.before", payload: { model: "m", messages: [{ role: "user", content: SECRETS.PAYLOAD }], purpose: "completion" } }) })).status).toBe(200);
  const key = (await (await call(`${api}/api/v1/gateway/keys`, { method: "POST", body: JSON.stringify({ space_id: "acme" }) })).json() as { key: string }).key;
  (SECRETS as Record<string, string>).GATEWAY_KEY = key;
  for (let i = 0; i < 5; i++) {
    const res = await call(`${gateway}/v1/chat/completions`, { token: key, method: "POST", body: JSON.stringify({ model: "m", messages: [{ role: "user", content: SECRETS.PROMPT }] }) });
    expect(res.status).toBe(502);
  }
  // The child's lines reach this process through a pipe, after the answers they describe
  // (events after the call, the 5xx line after the response): wait for each, however late.
  const written = () => requestIds.every((id) => new RegExp(`"reqId":"${id}",.*"msg":"request completed"`).test(log)) && /plugin quarantined/.test(log)
    && log.split("request answered with a server error").length - 1 === 5;
  await until(written, 60_000);
}, 120_000);

afterAll(async () => {
  if (child) await stop(child);
  await new Promise<void>((resolve) => upstream?.close(() => resolve()));
});

describe("sluice serve's log", () => {
  it("is JSON lines", () => {
    expect(log.trim().split("\n").length).toBeGreaterThan(20);
    for (const line of log.trim().split("\n")) expect(() => JSON.parse(line), line).not.toThrow();
  });

  it("gives every API and gateway request an id, answered in x-request-id, and one access line with it once answered", () => {
    expect(requestIds).not.toContain("none");
    expect(new Set(requestIds).size).toBe(requestIds.length);
    // At info, the request's arrival is not a line of its own (access-log.ts): it is on the answer's path.
    expect(lines().filter((l) => l.msg === "incoming request")).toEqual([]);
    const logged = lines().filter((l) => l.msg === "request completed");
    for (const id of requestIds) {
      const mine = logged.filter((l) => l.reqId === id);
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({ level: 30, req: { method: expect.any(String), url: expect.stringMatching(/^\//), remoteAddress: "127.0.0.1" }, res: { statusCode: expect.any(Number) }, responseTime: expect.any(Number) });
    }
    const chats = logged.filter((l) => (l.req as { url: string }).url === "/v1/chat/completions");
    expect(chats.map((l) => (l.res as { statusCode: number }).statusCode)).toEqual([502, 502, 502, 502, 502]);
  });

  it("answers both servers' liveness and readiness probes without a token, and logs their 200s only at debug", () => {
    expect(probes).toEqual([200, 200, 200, 200]);
    expect(lines().filter((l) => /^\/(healthz|readyz)/.test((l.req as { url?: string } | undefined)?.url ?? ""))).toEqual([]);
  });

  it("gives a refused request's completion line its error code", () => {
    const refused = lines().filter((l) => (l.res as { statusCode?: number } | undefined)?.statusCode === 401);
    expect(refused.length).toBeGreaterThan(0);
    for (const l of refused) expect(l.errorCode).toBe("UNAUTHORIZED");
  });

  it("logs every 5xx with its cause", () => {
    const errors = lines().filter((l) => l.msg === "request answered with a server error");
    expect(errors).toHaveLength(5);
    for (const e of errors) {
      expect(e).toMatchObject({ level: 50, status: 502, method: "POST", url: "/v1/chat/completions" });
      expect(requestIds).toContain(e.reqId);
      expect(e.err).toMatchObject({ type: "SluiceError", code: "OPERATION_FAILED", message: "chat operation failed: the upstream answered /chat/completions with HTTP 500: upstream broke" });
    }
  });

  it("logs the activation, the worker restarts and the quarantine", () => {
    expect(lines().filter((l) => l.event === "release.activated")).toEqual([expect.objectContaining({ level: 30, revision: 1, previousRevision: null, bindings: 2 })]);
    expect(lines().filter((l) => l.event === "worker.restarted").length).toBeGreaterThanOrEqual(5);
    expect(lines().find((l) => l.event === "worker.restarted")).toMatchObject({ level: 40, booted: true, msg: "sandbox worker ended; a replacement is starting" });
    expect(lines().filter((l) => l.event === "plugin.quarantined")).toEqual([expect.objectContaining({ level: 40, plugin: "looper@1.0.0", failures: 5, errorCode: "GUEST_TIMEOUT", bindings: ["loop"] })]);
  });

  it("carries no token, key, query string, payload, prompt, config content or guest log line", () => {
    for (const [name, secret] of Object.entries(SECRETS)) expect(log.includes(secret), `${name} in the log`).toBe(false);
    expect(log).not.toMatch(/authorization/i);
  });
});
