import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startApiServer } from "../../host/api/server.js";
import { isSluiceError } from "../../host/errors/sluice-error.js";
import { Registry } from "../../host/registry/registry.js";
import { pluginWasm } from "../helpers/fixtures.js";
import { fixture, manifestYaml, tempDir, toolCall, toolPayload } from "../registry/fixtures.js";

const TOKEN = "test-token-0123456789-abcdefghijklmnop";
const LIMIT_MANIFEST = readFileSync(new URL("../../plugins/order-search-limit/hook.yaml", import.meta.url), "utf8");
const LIMIT_WASM = pluginWasm("order-search-limit");

interface Server { url: string; registry: Registry; close: () => Promise<void> }
const running: Server[] = [];

async function serve(dataDir = tempDir(), options: { maxModuleBytes?: number } = {}): Promise<Server> {
  const registry = await Registry.open({ dataDir, hostOptions: { workers: 1 }, ...options });
  const server = await startApiServer({ registry, token: TOKEN, host: "127.0.0.1", port: 0 });
  const s = { url: server.url, registry, close: async () => { await server.close(); await registry.close(); running.splice(running.indexOf(s), 1); } };
  running.push(s);
  return s;
}
afterEach(async () => {
  for (const s of [...running]) await s.close();
});

async function call(s: Server, method: string, path: string, body?: unknown, token: string | null = TOKEN): Promise<{ status: number; body: any }> {
  const res = await fetch(new URL(path, s.url), {
    method,
    headers: { ...(token !== null ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const upload = (manifest: string, wasm: Uint8Array) => ({ manifest, wasm_base64: Buffer.from(wasm).toString("base64") });

async function toolRun(s: Server) {
  let received: Record<string, unknown> | undefined;
  const result = await s.registry.host.tool({ spaceId: "s1" }, toolCall(500), async (args) => { received = args; return {}; });
  return { limit: received?.limit, ran: result.hooks.map((h) => h.bindingId), revision: result.facts.revision };
}

describe("management API", () => {
  it("runs upload → test → bind → publish → call → disable → rollback → restart over HTTP", async () => {
    const dataDir = tempDir();
    let s = await serve(dataDir);
    const up = await call(s, "POST", "/api/v1/plugins", upload(LIMIT_MANIFEST, LIMIT_WASM));
    expect(up.status).toBe(201);
    expect(up.body.plugin).toMatchObject({ id: "order-search-limit", version: "1.0.0", size: LIMIT_WASM.byteLength });
    expect((await call(s, "POST", "/api/v1/plugins", upload(LIMIT_MANIFEST, LIMIT_WASM))).status).toBe(200);

    const tried = await call(s, "POST", "/api/v1/plugins/order-search-limit/versions/1.0.0/test", { point: "tool.before", payload: toolPayload, config: { max_limit: 100 } });
    expect(tried.status).toBe(200);
    expect(tried.body.result).toMatchObject({ outcome: "patch_input", changed: true, payload: { arguments: { limit: 100 } } });
    expect(typeof tried.body.result.duration_ms).toBe("number");

    const bound = await call(s, "POST", "/api/v1/bindings", { id: "orders-limit", hook_ref: "order-search-limit@1.0.0", point: "tool.before", match: { tool_ids: ["orders.search"] }, config: { max_limit: 100 } });
    expect(bound.status).toBe(201);
    const published = await call(s, "POST", "/api/v1/releases", { activate: true, note: "first" });
    expect(published.status).toBe(201);
    expect(published.body).toMatchObject({ release: { revision: 1, note: "first" }, active_revision: 1 });
    expect(await toolRun(s)).toEqual({ limit: 100, ran: ["orders-limit"], revision: 1 });

    const ext = await call(s, "GET", "/api/v1/pipeline/extensions");
    expect(ext.body).toMatchObject({ sdk_interface_version: "1.2.0", deprecations: [], revision: 1 });
    expect(ext.body.items).toEqual([expect.objectContaining({
      extension_id: "orders-limit", pair_id: "ref:order-search-limit@1.0.0", node_id: "tool.before", hook_type: "pre", enabled: true, order: 0,
      capability_boundary: "Governs tool arguments (validate, clamp); never generates content.", registered_at: expect.any(String),
    })]);

    const disabled = await call(s, "PATCH", "/api/v1/pipeline/extensions/orders-limit", { enabled: false });
    expect(disabled).toMatchObject({ status: 200, body: { revision: 2 } });
    expect(await toolRun(s)).toEqual({ limit: 500, ran: [], revision: 2 });

    expect((await call(s, "POST", "/api/v1/releases/rollback", {})).body.activation).toMatchObject({ revision: 1, reason: "rollback" });
    expect(await toolRun(s)).toEqual({ limit: 100, ran: ["orders-limit"], revision: 1 });

    const before = await Promise.all(["/api/v1/plugins", "/api/v1/bindings", "/api/v1/releases", "/api/v1/pipeline/extensions"].map((p) => call(s, "GET", p)));
    await s.close();
    s = await serve(dataDir);
    const after = await Promise.all(["/api/v1/plugins", "/api/v1/bindings", "/api/v1/releases", "/api/v1/pipeline/extensions"].map((p) => call(s, "GET", p)));
    expect(after).toEqual(before);
    expect(await toolRun(s)).toEqual({ limit: 100, ran: ["orders-limit"], revision: 1 });
    expect((await call(s, "POST", "/api/v1/releases/2/activate")).body.activation.revision).toBe(2);
    expect(await toolRun(s)).toMatchObject({ limit: 500, ran: [] });
  });

  it("answers bad input with a 4xx and a code, and stores nothing", async () => {
    const s = await serve(tempDir(), { maxModuleBytes: 64 * 1024 });
    expect((await call(s, "POST", "/api/v1/plugins", upload(manifestYaml(), fixture("continue")))).status).toBe(201);
    const snapshot = async () => Promise.all(["/api/v1/plugins", "/api/v1/bindings", "/api/v1/releases"].map(async (p) => (await call(s, "GET", p)).body));
    const stored = await snapshot();

    const cases: [string, () => Promise<{ status: number; body: any }>, number, string][] = [
      ["corrupt wasm", () => call(s, "POST", "/api/v1/plugins", upload(manifestYaml({ id: "other" }), new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 99]))), 400, "MODULE_INVALID"],
      ["an upload over the body limit", () => call(s, "POST", "/api/v1/plugins", upload(manifestYaml({ id: "big" }), new Uint8Array(300_000))), 413, "PAYLOAD_TOO_LARGE"],
      ["a module over the module limit", () => call(s, "POST", "/api/v1/plugins", upload(manifestYaml({ id: "big" }), new Uint8Array(70_000))), 413, "MODULE_TOO_LARGE"],
      ["a manifest that fails its schema", () => call(s, "POST", "/api/v1/plugins", upload(manifestYaml({ id: "other", points: { "tool.before": { write: ["/name"] } } }), fixture("continue"))), 400, "MANIFEST_INVALID"],
      ["a YAML alias bomb", () => call(s, "POST", "/api/v1/plugins", upload("a: &a [x,x]\nb: [*a,*a]\n", fixture("continue"))), 400, "MANIFEST_INVALID"],
      ["a duplicate version with other bytes", () => call(s, "POST", "/api/v1/plugins", upload(manifestYaml(), fixture("outcomes"))), 409, "VERSION_CONFLICT"],
      ["a config that fails the plugin's schema", () => call(s, "POST", "/api/v1/bindings", { id: "b", hook_ref: "clamp@1.0.0", point: "tool.before", config: { max_limit: "lots" } }), 400, "PLUGIN_CONFIG_INVALID"],
      ["a binding at a point the plugin does not declare", () => call(s, "POST", "/api/v1/bindings", { id: "b", hook_ref: "clamp@1.0.0", point: "tool.after", config: { max_limit: 1 } }), 400, "BINDING_INVALID"],
      ["an unknown plugin", () => call(s, "GET", "/api/v1/plugins/nope"), 404, "PLUGIN_NOT_FOUND"],
      ["an unknown version", () => call(s, "GET", "/api/v1/plugins/clamp/versions/9.9.9"), 404, "PLUGIN_NOT_FOUND"],
      ["a binding to an unknown version", () => call(s, "POST", "/api/v1/bindings", { id: "b", hook_ref: "clamp@9.9.9", point: "tool.before", config: { max_limit: 1 } }), 404, "PLUGIN_NOT_FOUND"],
      ["a plugin id with path characters", () => call(s, "GET", "/api/v1/plugins/..%2F..%2Fetc/versions/1.0.0"), 400, "ID_INVALID"],
      ["a version with path characters", () => call(s, "POST", "/api/v1/plugins/clamp/versions/..%2F1.0.0/test", { point: "tool.before", payload: toolPayload }), 400, "ID_INVALID"],
      ["a hook_ref with path characters", () => call(s, "POST", "/api/v1/bindings", { id: "b", hook_ref: "../../clamp@1.0.0", point: "tool.before" }), 400, "ID_INVALID"],
      ["a binding id with path characters", () => call(s, "POST", "/api/v1/bindings", { id: "../b", hook_ref: "clamp@1.0.0", point: "tool.before", config: { max_limit: 1 } }), 400, "ID_INVALID"],
      ["an unknown release", () => call(s, "POST", "/api/v1/releases/42/activate"), 404, "RELEASE_NOT_FOUND"],
      ["nothing to roll back to", () => call(s, "POST", "/api/v1/releases/rollback", {}), 404, "RELEASE_NOT_FOUND"],
      ["an unknown extension", () => call(s, "PATCH", "/api/v1/pipeline/extensions/ghost", { enabled: false }), 404, "BINDING_NOT_FOUND"],
      ["a body that is not JSON", () => call(s, "POST", "/api/v1/bindings", "{not json"), 400, "REQUEST_INVALID"],
      ["a body with unknown fields", () => call(s, "POST", "/api/v1/releases", { activate: true, surprise: 1 }), 400, "REQUEST_INVALID"],
      ["a missing token", () => call(s, "GET", "/api/v1/plugins", undefined, null), 401, "UNAUTHORIZED"],
      ["a wrong token", () => call(s, "POST", "/api/v1/plugins", upload(manifestYaml({ id: "x" }), fixture("continue")), "wrong"), 401, "UNAUTHORIZED"],
      ["an unknown route", () => call(s, "GET", "/api/v1/nothing"), 404, "ROUTE_NOT_FOUND"],
    ];
    for (const [name, send, status, code] of cases) {
      const res = await send();
      expect({ name, status: res.status, code: res.body?.error?.code }).toEqual({ name, status, code });
      expect(typeof res.body.error.message).toBe("string");
    }
    expect(await snapshot()).toEqual(stored);
  });

  it("requires the token on every route, the OpenAPI document included", async () => {
    const s = await serve();
    expect((await call(s, "GET", "/api/v1/openapi.json", undefined, null)).status).toBe(401);
    const doc = await call(s, "GET", "/api/v1/openapi.json");
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe("3.1.0");
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(["/api/v1/plugins", "/api/v1/bindings", "/api/v1/releases", "/api/v1/pipeline/extensions", "/api/v1/pipeline/order"]));
    expect(doc.body.components.securitySchemes.bearer).toEqual({ type: "http", scheme: "bearer" });
  });

  it("names each shared shape once in the OpenAPI document, and every reference in it resolves there", async () => {
    const s = await serve();
    const doc = (await call(s, "GET", "/api/v1/openapi.json")).body;
    const schemas = doc.components.schemas as Record<string, unknown>;
    expect(Object.keys(schemas).sort()).toEqual(["Activation", "AuditRow", "Binding", "ControlChange", "ErrorBody", "ErrorData", "ExtensionItem", "ExtensionList", "Manifest", "OperationRecord", "Plugin", "Release", "ReleaseBinding"]);
    const ok = (path: string, method: string, status: number) => doc.paths[path][method].responses[status].content["application/json"].schema;
    expect(ok("/api/v1/plugins", "get", 200).properties.items.items).toEqual({ $ref: "#/components/schemas/Plugin" });
    expect(ok("/api/v1/bindings", "get", 401)).toEqual({ $ref: "#/components/schemas/ErrorBody" });
    expect(schemas.Release).toMatchObject({ properties: { bindings: { items: { $ref: "#/components/schemas/ReleaseBinding" } } } });
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]*)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(50);
    for (const r of new Set(refs)) expect(r.startsWith("#/components/schemas/") && r.slice("#/components/schemas/".length) in schemas, r).toBe(true);
  });

  it("reorders through PUT /api/v1/pipeline/order", async () => {
    const s = await serve();
    await call(s, "POST", "/api/v1/plugins", upload(manifestYaml(), fixture("continue")));
    for (const [i, id] of ["a", "b"].entries()) await call(s, "POST", "/api/v1/bindings", { id, hook_ref: "clamp@1.0.0", point: "tool.before", config: { max_limit: i + 1 } });
    await call(s, "POST", "/api/v1/releases", { activate: true });
    const res = await call(s, "PUT", "/api/v1/pipeline/order", { order: ["b"], order_mode: "symmetric" });
    expect(res).toMatchObject({ status: 200, body: { revision: 2 } });
    const ext = await call(s, "GET", "/api/v1/pipeline/extensions");
    expect(ext.body).toMatchObject({ revision: 2, order_mode: "symmetric" });
    expect(ext.body.items.map((i: { extension_id: string }) => i.extension_id)).toEqual(["b", "a"]);
    expect((await toolRun(s)).ran).toEqual(["b", "a"]);
  });

  it("refuses to listen beyond loopback without a token, and generates one on loopback", async () => {
    const dataDir = tempDir();
    const registry = await Registry.open({ dataDir, hostOptions: { workers: 1 } });
    try {
      const err = await startApiServer({ registry, host: "0.0.0.0", port: 0 }).catch((e: unknown) => e);
      expect(isSluiceError(err, "CONFIG_INVALID")).toBe(true);
      const local = await startApiServer({ registry, host: "127.0.0.1", port: 0 });
      expect(local.token.length).toBeGreaterThanOrEqual(32);
      expect(local.tokenFile).toBe(path.join(dataDir, "api-token"));
      expect(readFileSync(local.tokenFile!, "utf8")).toBe(`${local.token}\n`);
      expect(statSync(local.tokenFile!).mode & 0o777).toBe(0o600);
      expect((await fetch(`${local.url}/api/v1/status`)).status).toBe(401);
      expect((await fetch(`${local.url}/api/v1/status`, { headers: { authorization: `Bearer ${local.token}` } })).status).toBe(200);
      await local.close();
    } finally {
      await registry.close();
    }
  });
});
