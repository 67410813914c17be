/**
 * The management API's answers carry everything the registry, the records and the host
 * hold. Fastify writes a route's answer through its response schema, which drops any field
 * the schema does not name and coerces types: each route here is compared, field by field,
 * with what the library returns for the same question, so a field missing from a schema
 * fails a test instead of vanishing from the console and the CLI.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { createApiServer } from "../../host/api/server.js";
import { auditView } from "../../host/api/audit-view.js";
import { metricsSummary } from "../../host/api/routes/metrics-summary.js";
import { GatewayKeys } from "../../host/keys/keys.js";
import { openSqlitePayloads } from "../../host/records/sqlite-store.js";
import { Registry } from "../../host/registry/registry.js";
import { DEMO_BINDINGS, DEMO_PLUGINS } from "../../host/demo/release.js";
import { readFileSync } from "node:fs";
import { pluginWasm } from "../helpers/fixtures.js";
import { fixture, manifestYaml, tempDir, toolCall } from "../registry/fixtures.js";

const TOKEN = "answers-token-0123456789-abcdefghijklmn";
const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const manifestOf = (name: string) => readFileSync(new URL(`../../plugins/${name}/hook.yaml`, import.meta.url), "utf8");
const upload = (manifest: string, wasm: Uint8Array) => ({ manifest, wasm_base64: Buffer.from(wasm).toString("base64") });

let registry: Registry;
let keys: GatewayKeys;
let app: FastifyInstance;

async function call(method: string, url: string, payload?: unknown): Promise<{ status: number; body: any }> {
  const res = await app.inject({ method: method as "GET", url, headers: { authorization: `Bearer ${TOKEN}` }, ...(payload !== undefined ? { payload: payload as object } : {}) });
  return { status: res.statusCode, body: res.body ? JSON.parse(res.body) : undefined };
}

async function get(url: string): Promise<any> {
  const res = await call("GET", url);
  expect(res.status, `GET ${url}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

beforeAll(async () => {
  const dataDir = tempDir();
  const payloads = openSqlitePayloads(path.join(dataDir, "payloads.db"), { retentionMs: 3_600_000 });
  registry = await Registry.open({ dataDir, hostOptions: { workers: 1, payloads, quarantine: { threshold: 2 } } });
  keys = new GatewayKeys(path.join(dataDir, "keys.db"));
  app = await createApiServer({ registry, token: TOKEN, logger: false, gatewayKeys: keys });
  for (const name of DEMO_PLUGINS) await registry.upload({ manifest: manifestOf(name), wasm: pluginWasm(name) });
  for (const b of DEMO_BINDINGS) await registry.createBinding(structuredClone(b) as unknown as Record<string, unknown>);
  await registry.upload({ manifest: manifestYaml({ id: "trapper", failure_policy: "fail-open" }), wasm: fixture("unreachable") });
  await registry.createBinding({ id: "trap", hook_ref: "trapper@1.0.0", point: "tool.before", failure_policy: "fail-open", config: { max_limit: 1 }, match: { tool_ids: ["orders.search"], spaces: ["s1"] }, extension: "trap-pair" });
  await registry.publish({ activate: true, note: "first" });
  for (let i = 0; i < 3; i++) await registry.host.tool({ spaceId: "s1", runId: "session-1" }, toolCall(), async (args) => ({ seen: args }));
  await registry.host.chat({ spaceId: "s2", actorId: "someone" }, { model: "m", messages: [{ role: "user", content: "Mail jane@example.com" }] },
    async () => ({ content: "Write to jane@example.com", tool_calls: [], finish_reason: "stop", usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } }));
}, 120_000);

afterAll(async () => {
  await app?.close();
  await keys?.close();
  await registry?.close();
});

describe("the management API's answers", () => {
  it("list every plugin version as the catalogue stores it, manifests whole", async () => {
    expect(await get("/api/v1/plugins")).toEqual({ items: plain(await registry.listPlugins()) });
    expect(await get("/api/v1/plugins/pii-redact")).toEqual({ id: "pii-redact", items: plain(await registry.listPlugins("pii-redact")) });
    const one = await get("/api/v1/plugins/pii-redact/versions/1.0.0");
    expect(one).toEqual({ plugin: plain(await registry.getPlugin("pii-redact", "1.0.0")) });
    expect(one.plugin.manifest.points["model.chat.after"]).toMatchObject({ stream_rewrite: "chunk" });
  });

  it("answer an upload and a deploy with the stored version, its Git source, the bindings and the release", async () => {
    const uploaded = await call("POST", "/api/v1/plugins", upload(manifestYaml({ id: "fresh", language: "assemblyscript", capabilities: ["kv"], limits: { fuel: 5_000_000, memory_mb: 8 } }), fixture("unreachable")));
    expect(uploaded.status).toBe(201);
    expect(uploaded.body).toEqual({ plugin: plain(await registry.getPlugin("fresh", "1.0.0")), created: true });
    const source = { repository: "https://example.com/hooks.git", commit: "0123456789abcdef0123456789abcdef01234567", ref: "main", path: "clamp" };
    const deployed = await call("POST", "/api/v1/deploy", { ...upload(manifestYaml({ id: "deployed", bindings: [{ point: "tool.before", config: { max_limit: 3 }, match: { tool_ids: ["never.called"] } }] }), fixture("unreachable")), source, note: "deployed", activate: false });
    expect(deployed.status).toBe(200);
    const plugin = plain(await registry.getPlugin("deployed", "1.0.0"));
    expect(plugin.source).toEqual(source);
    expect(deployed.body).toEqual({
      plugin, uploaded: true, bindings: [{ id: "deployed-tool-before", point: "tool.before", created: true }],
      release: plain(await registry.getRelease(deployed.body.release.revision)), created: true, activated: false, active_revision: await registry.activeRevision(),
    });
  });

  it("show bindings and releases as the draft and the release history hold them", async () => {
    expect(await get("/api/v1/bindings")).toEqual({ items: plain(await registry.listBindings()) });
    expect(await get("/api/v1/bindings/trap")).toEqual({ binding: plain(await registry.getBinding("trap")) });
    expect(await get("/api/v1/releases")).toEqual({ active_revision: await registry.activeRevision(), items: plain(await registry.listReleases()), activations: plain(await registry.listActivations()) });
    expect(await get("/api/v1/releases/1")).toEqual({ release: plain(await registry.getRelease("1")), active_revision: await registry.activeRevision() });
  });

  it("answer publish, activate, enable, reorder and rollback with what they changed", async () => {
    const bound = await call("POST", "/api/v1/bindings", { id: "second-clamp", hook_ref: "order-search-limit@1.0.0", point: "tool.before", match: { tool_ids: ["orders.list"] }, config: { max_limit: 9 }, priority: 5, timeout_ms: 40 });
    expect(bound.status).toBe(201);
    expect(bound.body).toEqual({ binding: plain(await registry.getBinding("second-clamp")) });
    const changed = await call("PUT", "/api/v1/bindings/second-clamp", { hook_ref: "order-search-limit@1.0.0", point: "tool.before", config: { max_limit: 8 } });
    expect(changed.body).toEqual({ binding: plain(await registry.getBinding("second-clamp")) });
    const published = await call("POST", "/api/v1/releases", { note: "second" });
    expect(published.status).toBe(201);
    expect(published.body).toEqual({ release: plain(await registry.getRelease(String(published.body.release.revision))), created: true, active_revision: 1 });
    const activated = await call("POST", `/api/v1/releases/${published.body.release.revision}/activate`);
    expect(activated.body).toEqual({ activation: plain((await registry.listActivations()).at(-1)) });
    const disabled = await call("PATCH", "/api/v1/pipeline/extensions/guard-prompts", { enabled: false });
    expect(disabled.body).toEqual({ revision: await registry.activeRevision(), created: await registry.activeRevision() });
    const reordered = await call("PUT", "/api/v1/pipeline/order", { order: ["redact-answer", "normalize-answer"] });
    expect(reordered.body).toEqual({ revision: await registry.activeRevision(), created: await registry.activeRevision() });
    const rolled = await call("POST", "/api/v1/releases/rollback", { revision: 1 });
    expect(rolled.body).toEqual({ activation: plain((await registry.listActivations()).at(-1)), draft_reset_to: 1 });
  });

  it("list the extensions of the active release and of the draft as the registry builds them", async () => {
    expect(await get("/api/v1/pipeline/extensions")).toEqual(plain(await registry.extensions()));
    const draft = await get("/api/v1/pipeline/extensions?view=draft");
    expect(draft).toEqual(plain(await registry.extensions("draft")));
    expect(draft.items.find((i: { extension_id: string }) => i.extension_id === "trap").match).toEqual({ tool_ids: ["orders.search"], spaces: ["s1"] });
  });

  it("show operation records, their hooks and the audit rows as the records store keeps them", async () => {
    const store = registry.host.records!;
    const listed = await get("/api/v1/operations");
    expect(listed).toEqual({ items: plain(await store.list({})), unreadable: [] });
    expect(await get("/api/v1/operations?space=s1&limit=2")).toMatchObject({ total: 3, complete: true, items: plain((await store.list({})).filter((o) => o.identity.ctx.spaceId === "s1").slice(0, 2)) });
    for (const { operationId } of listed.items) {
      const rows = await store.audit({ operationId, limit: 10_000 });
      expect(await get(`/api/v1/operations/${operationId}`)).toEqual({ operation: plain(await store.get(operationId)), hooks: plain(await auditView(rows, registry.host.payloads)) });
    }
    const audit = await get("/api/v1/audit");
    expect(audit).toEqual({ items: plain(await auditView(await store.audit({}), registry.host.payloads)) });
    expect(audit.items.some((a: { fuel: number | null }) => typeof a.fuel === "number")).toBe(true);
    expect(audit.items.some((a: { durationMs: number }) => !Number.isInteger(a.durationMs))).toBe(true);
  });

  it("answer a replay with every stage and hook the replay computed", async () => {
    const chat = (await registry.host.records!.list({})).find((o) => o.identity.operation === "chat")!;
    const replayed = await call("POST", `/api/v1/operations/${chat.operationId}/replay`, { hook_ref: "pii-redact@1.0.0" });
    expect(replayed.status).toBe(200);
    expect(replayed.body).toEqual({ replay: plain(await registry.replay(chat.operationId, { hook_ref: "pii-redact@1.0.0" })) });
    expect(replayed.body.replay.stages.length).toBeGreaterThan(0);
  });

  it("list quarantined plugins with the error that tripped them", async () => {
    const q = await get("/api/v1/quarantine");
    expect(q).toEqual({ items: plain(registry.host.quarantine.list()) });
    expect(q.items).toEqual([expect.objectContaining({ ref: "trapper@1.0.0", until: null, lastError: expect.objectContaining({ code: "GUEST_TRAP" }) })]);
  });

  it("give the metrics summary and the fleet whole", async () => {
    const summary = await get("/api/v1/metrics/summary");
    expect(summary).toEqual({ ...plain(await metricsSummary(registry.host.observer.registry)), at: summary.at });
    expect(summary.hooks.length).toBeGreaterThan(0);
    expect(summary.boundary.length).toBeGreaterThan(0);
    const fleet = await get("/api/v1/fleet");
    const status = await registry.releaseStatus();
    expect(fleet).toEqual({ this_host: registry.host.id, shared: false, items: [{ host_id: registry.host.id, url: expect.any(String), active_revision: status.active_revision, serving_revision: status.serving_revision, release_error: null, seen_at: fleet.items[0].seen_at }] });
  });

  it("answer a dry run and a test call with the outcome, the payloads and each hook", async () => {
    const input = { point: "tool.before", payload: { tool_id: "orders.search", name: "search", arguments: { q: "late", limit: 500 }, schema: { type: "object" }, call_id: "c1" }, config: { max_limit: 50 } };
    const tried = await call("POST", "/api/v1/plugins/order-search-limit/versions/1.0.0/test", input);
    expect(tried.status).toBe(200);
    const direct = plain(await registry.test("order-search-limit", "1.0.0", input as never));
    expect(tried.body).toEqual({ result: { ...direct, duration_ms: tried.body.result.duration_ms, total_ms: tried.body.result.total_ms } });
    expect(tried.body.result.payload.arguments.limit).toBe(50);
    await registry.upload({ manifest: manifestYaml({ id: "chatty", config_schema: { type: "object" } }), wasm: fixture("log-spam") });
    const chatty = { point: "tool.before", payload: input.payload };
    const logged = await call("POST", "/api/v1/plugins/chatty/versions/1.0.0/test", chatty);
    const logs = plain(await registry.test("chatty", "1.0.0", chatty as never)).logs;
    expect(logs?.lines.length).toBeGreaterThan(0);
    expect(logged.body.result.logs).toEqual(logs);

    const called = await call("POST", "/api/v1/call", { kind: "tool", tool_id: "orders.search", arguments: { q: "late", limit: 500 }, space_id: "s9" });
    expect(called.status).toBe(200);
    expect(Object.keys(called.body).sort()).toEqual(["called", "duration_ms", "executed_with", "hooks", "input", "ok", "operation_id", "output", "revision", "test"]);
    expect(called.body).toMatchObject({ test: true, ok: true, called: true, input: { q: "late", limit: 500 }, executed_with: { q: "late", limit: 50 }, output: { status: "succeeded", view: { echoed: { q: "late", limit: 50 } } } });
    expect(called.body.hooks).toContainEqual({ point: "tool.before", binding: "clamp-order-search", hook_ref: "order-search-limit@1.0.0", outcome: expect.any(String), duration_ms: expect.any(Number), fuel: expect.any(Number) });

    await registry.createBinding({ id: "chatty", hook_ref: "chatty@1.0.0", point: "tool.before", match: { tool_ids: ["chatty.tool"] } });
    await registry.publish({ activate: true });
    const heard = await call("POST", "/api/v1/call", { kind: "tool", tool_id: "chatty.tool", arguments: {} });
    expect(heard.body.hooks.find((h: { binding: string }) => h.binding === "chatty").logs).toEqual(logs);
  });

  it("list gateway keys without their secrets", async () => {
    const created = await call("POST", "/api/v1/gateway/keys", { space_id: "s1", name: "ci" });
    expect(created.status).toBe(201);
    const listed = await get("/api/v1/gateway/keys");
    const row = (await keys.list())[0]!;
    expect(listed).toEqual({ keys: [{ id: row.id, space_id: "s1", name: "ci", prefix: row.prefix, created_at: row.createdAt, revoked_at: null, scope: "gateway" }] });
    expect(created.body).toEqual({ ...listed.keys[0], key: created.body.key });
  });
});
