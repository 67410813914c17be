import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isSluiceError } from "../../host/errors/sluice-error.js";
import { Registry } from "../../host/registry/registry.js";
import { pluginWasm } from "../helpers/fixtures.js";
import { fixture, manifestYaml, tempDir, toolCall, toolPayload } from "./fixtures.js";

const LIMIT_MANIFEST = readFileSync(new URL("../../plugins/order-search-limit/hook.yaml", import.meta.url), "utf8");
const LIMIT_WASM = pluginWasm("order-search-limit");
const LIMIT = "order-search-limit@1.0.0";

const open: Registry[] = [];
async function openRegistry(dataDir = tempDir(), maxModuleBytes?: number): Promise<Registry> {
  const r = await Registry.open({ dataDir, hostOptions: { workers: 1 }, ...(maxModuleBytes ? { maxModuleBytes } : {}) });
  open.push(r);
  return r;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});

async function code(work: () => unknown): Promise<string> {
  try {
    await work();
  } catch (err) {
    if (isSluiceError(err)) return err.code;
    throw err;
  }
  return "accepted";
}

/** The arguments the tool received, and the bindings that ran. */
async function callTool(r: Registry, limit = 500) {
  let received: Record<string, unknown> | undefined;
  const result = await r.host.tool({ spaceId: "s1" }, toolCall(limit), async (args) => { received = args; return { rows: [] }; });
  return { ok: result.ok, received, ran: result.hooks.map((h) => h.bindingId) };
}

describe("Registry", () => {
  it("runs the management flow: upload, test, bind, publish, call, disable, rollback, restart", async () => {
    const dataDir = tempDir();
    const r = await openRegistry(dataDir);
    const { plugin, created } = await r.upload({ manifest: LIMIT_MANIFEST, wasm: LIMIT_WASM });
    expect(created).toBe(true);
    expect(existsSync(path.join(dataDir, "artifacts", "sha256", `${plugin.sha256}.wasm`))).toBe(true);

    const tried = await r.test("order-search-limit", "1.0.0", { point: "tool.before", payload: toolPayload, config: { max_limit: 100 } });
    expect(tried).toMatchObject({ outcome: "patch_input", changed: true, payload: { arguments: { q: "late", limit: 100 } } });
    expect(tried.duration_ms).toBeGreaterThan(0);
    // The dry run reports the guest's fuel against its budget, as `sluice test --remote` shows it.
    expect(tried.fuel).toBeGreaterThan(0);
    expect(tried.fuel_limit).toBe(50_000_000);
    expect(await r.listReleases()).toEqual([]);

    await r.createBinding({ id: "orders-limit", hook_ref: LIMIT, point: "tool.before", match: { tool_ids: ["orders.search"] }, config: { max_limit: 100 } });
    const release = await r.publish({ activate: true });
    expect(release).toMatchObject({ revision: 1, order_mode: "staged", bindings: [{ id: "orders-limit", code_sha256: plugin.sha256, config: { max_limit: 100 }, failure_policy: "fail-closed" }] });
    expect(r.host.release.revision).toBe(1);
    expect(await callTool(r)).toEqual({ ok: true, received: { q: "late", limit: 100 }, ran: ["orders-limit"] });

    const disabled = await r.setEnabled("orders-limit", false);
    expect(disabled).toEqual({ revision: 2, created: 2 });
    expect((await r.extensions()).items).toMatchObject([{ extension_id: "orders-limit", enabled: false, order: 0 }]);
    expect(await callTool(r)).toEqual({ ok: true, received: { q: "late", limit: 500 }, ran: [] });

    expect((await r.rollback()).revision).toBe(1);
    expect(await callTool(r)).toMatchObject({ received: { limit: 100 }, ran: ["orders-limit"] });
    await r.close();
    open.splice(open.indexOf(r), 1);

    const again = await openRegistry(dataDir);
    expect(await again.activeRevision()).toBe(1);
    expect(again.host.release.revision).toBe(1);
    expect((await again.listReleases()).map((x) => x.revision)).toEqual([1, 2]);
    expect((await again.listPlugins()).map((p) => `${p.id}@${p.version}`)).toEqual([LIMIT]);
    expect(await callTool(again)).toMatchObject({ received: { limit: 100 }, ran: ["orders-limit"] });
  });

  it("runs each operation on the active revision, recorded in its facts", async () => {
    const r = await openRegistry();
    await r.upload({ manifest: LIMIT_MANIFEST, wasm: LIMIT_WASM });
    await r.createBinding({ id: "b", hook_ref: LIMIT, point: "tool.before", config: { max_limit: 1 } });
    await r.publish({ activate: true });
    // A second revision needs a change: an unchanged draft publishes nothing (next test).
    await r.updateBinding("b", { hook_ref: LIMIT, point: "tool.before", config: { max_limit: 2 } });
    await r.publish({ activate: true });
    const result = await r.host.tool({ spaceId: "s" }, toolCall(), async () => ({}));
    expect(result.facts.revision).toBe(2);
  });

  it("publishes nothing when the draft is unchanged since the latest revision, and says so", async () => {
    const r = await openRegistry();
    await r.upload({ manifest: LIMIT_MANIFEST, wasm: LIMIT_WASM });
    await r.createBinding({ id: "b", hook_ref: LIMIT, point: "tool.before", config: { max_limit: 1 } });
    expect(await r.publishDraft({})).toMatchObject({ created: true, release: { revision: 1 } });
    expect(await r.publishDraft({ activate: true })).toMatchObject({ created: false, release: { revision: 1 } });
    expect(await r.activeRevision()).toBe(1);
    expect((await r.listReleases()).map((x) => x.revision)).toEqual([1]);
    // The order mode is part of a revision: changing it is a change.
    expect(await r.publishDraft({ order_mode: "symmetric" })).toMatchObject({ created: true, release: { revision: 2, order_mode: "symmetric" } });
    await r.deleteBinding("b");
    expect(await r.publishDraft({})).toMatchObject({ created: true, release: { revision: 3, bindings: [] } });
    expect(await r.publishDraft({})).toMatchObject({ created: false, release: { revision: 3 } });
  });

  it("keeps operations that started on a revision on it while another is activated", async () => {
    const r = await openRegistry();
    await r.upload({ manifest: LIMIT_MANIFEST, wasm: LIMIT_WASM });
    await r.createBinding({ id: "b", hook_ref: LIMIT, point: "tool.before", config: { max_limit: 100 } });
    await r.publish({ activate: true });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => { release = resolve; });
    let started!: () => void;
    const inside = new Promise<void>((resolve) => { started = resolve; });
    const running = r.host.tool({ spaceId: "s" }, toolCall(), async (args) => { started(); await gate; return args; });
    await inside;
    await r.setEnabled("b", false);
    release();
    const result = await running;
    expect(result).toMatchObject({ ok: true, facts: { revision: 1, realResult: { limit: 100 } } });
    expect(await r.activeRevision()).toBe(2);
    expect((await callTool(r)).ran).toEqual([]);
  });

  it("treats an identical re-upload as a no-op and refuses the same version with other bytes", async () => {
    const r = await openRegistry();
    const manifest = manifestYaml();
    expect((await r.upload({ manifest, wasm: fixture("continue") })).created).toBe(true);
    expect((await r.upload({ manifest, wasm: fixture("continue") })).created).toBe(false);
    expect(await code(() => r.upload({ manifest, wasm: fixture("outcomes") }))).toBe("VERSION_CONFLICT");
    expect(await code(() => r.upload({ manifest: manifestYaml({ description: "changed" }), wasm: fixture("continue") }))).toBe("VERSION_CONFLICT");
    expect(await r.listPlugins()).toHaveLength(1);
  });

  it("stores exactly one of two concurrent uploads of one version with different bytes", async () => {
    const r = await openRegistry();
    const manifest = manifestYaml();
    const results = await Promise.allSettled([r.upload({ manifest, wasm: fixture("continue") }), r.upload({ manifest, wasm: fixture("outcomes") })]);
    expect(results.filter((x) => x.status === "fulfilled")).toHaveLength(1);
    expect(results.filter((x) => x.status === "rejected").map((x) => (x as PromiseRejectedResult).reason.code)).toEqual(["VERSION_CONFLICT"]);
    expect(await r.listPlugins()).toHaveLength(1);
  });

  it.each([
    ["corrupt wasm", () => ({ manifest: manifestYaml(), wasm: new Uint8Array([0, 97, 115, 109, 9, 9, 9, 9]) }), "MODULE_INVALID"],
    ["a module without the ABI exports", () => ({ manifest: manifestYaml(), wasm: fixture("missing-exports") }), "MODULE_MISSING_EXPORT"],
    ["a module using a capability the manifest does not declare", () => ({ manifest: manifestYaml(), wasm: fixture("kv-user") }), "CAPABILITY_NOT_GRANTED"],
    ["a manifest that fails its schema", () => ({ manifest: manifestYaml({ id: "../x" }), wasm: fixture("continue") }), "MANIFEST_INVALID"],
    ["an oversize module", () => ({ manifest: manifestYaml(), wasm: new Uint8Array(70_000) }), "MODULE_TOO_LARGE"],
  ])("refuses %s and stores nothing", async (_name, input, expected) => {
    const dataDir = tempDir();
    const r = await openRegistry(dataDir, 64 * 1024);
    expect(await code(() => r.upload(input()))).toBe(expected);
    expect(await r.listPlugins()).toEqual([]);
    expect(readdirSync(path.join(dataDir, "artifacts", "sha256"))).toEqual([]);
  });

  it("checks bindings against the plugin: its points, its config schema, and that it exists", async () => {
    const r = await openRegistry();
    await r.upload({ manifest: manifestYaml(), wasm: fixture("continue") });
    const base = { id: "b1", hook_ref: "clamp@1.0.0", point: "tool.before", config: { max_limit: 5 } };
    expect(await code(() => r.createBinding({ ...base, config: { max_limit: 0 } }))).toBe("PLUGIN_CONFIG_INVALID");
    expect(await code(() => r.createBinding({ ...base, config: { other: 1 } }))).toBe("PLUGIN_CONFIG_INVALID");
    expect(await code(() => r.createBinding({ ...base, point: "tool.after" }))).toBe("BINDING_INVALID");
    expect(await code(() => r.createBinding({ ...base, hook_ref: "clamp@2.0.0" }))).toBe("PLUGIN_NOT_FOUND");
    expect(await code(() => r.createBinding({ ...base, hook_ref: "../clamp@1.0.0" }))).toBe("ID_INVALID");
    expect(await code(() => r.createBinding({ ...base, id: "../b" }))).toBe("ID_INVALID");
    expect(await code(() => r.createBinding({ ...base, priority: "high" }))).toBe("BINDING_INVALID");
    expect(await r.listBindings()).toEqual([]);
    await r.createBinding(base);
    expect(await code(() => r.createBinding(base))).toBe("BINDING_CONFLICT");
    expect(await r.getBinding("b1")).toMatchObject({ priority: 100, timeout_ms: 1000, enabled: true, mandatory: false, failure_policy: "fail-closed" });
  });

  it("refuses unknown plugins, versions, releases and malformed ids with their codes", async () => {
    const r = await openRegistry();
    expect(await code(() => r.getPlugin("nope", "1.0.0"))).toBe("PLUGIN_NOT_FOUND");
    expect(await code(() => r.getPlugin("../../etc", "1.0.0"))).toBe("ID_INVALID");
    expect(await code(() => r.getPlugin("nope", "1.0.0/../../x"))).toBe("ID_INVALID");
    expect(await code(() => r.activate(7))).toBe("RELEASE_NOT_FOUND");
    expect(await code(() => r.rollback())).toBe("RELEASE_NOT_FOUND");
    expect(await code(() => r.setEnabled("ghost", false))).toBe("BINDING_NOT_FOUND");
  });

  it("keeps a disabled binding in order and reorders the draft and the active release", async () => {
    const r = await openRegistry();
    await r.upload({ manifest: manifestYaml(), wasm: fixture("continue") });
    // Distinct configs: the same plugin with the same config would run once (deduplicated).
    for (const [i, id] of ["a", "b", "c"].entries()) await r.createBinding({ id, hook_ref: "clamp@1.0.0", point: "tool.before", config: { max_limit: i + 1 }, priority: 100 });
    await r.publish({ activate: true });
    await r.setEnabled("b", false);
    expect((await r.extensions()).items.map((i) => [i.extension_id, i.order, i.enabled])).toEqual([["a", 0, true], ["b", 1, false], ["c", 2, true]]);
    const change = await r.reorder(["c", "a"], "symmetric");
    expect(change.revision).toBe(3);
    const view = await r.extensions();
    expect(view).toMatchObject({ sdk_interface_version: "1.2.0", deprecations: [], revision: 3, order_mode: "symmetric" });
    expect(view.items.map((i) => i.extension_id)).toEqual(["c", "a", "b"]);
    expect((await r.extensions("draft")).items.map((i) => i.extension_id)).toEqual(["c", "a", "b"]);
    expect((await callTool(r)).ran).toEqual(["c", "a"]);
    expect(await r.reorder(["c", "a"])).toEqual({ revision: 3 });
  });

  it("gives a dry run's failure and timing without storing anything", async () => {
    const r = await openRegistry();
    await r.upload({ manifest: manifestYaml({ id: "trap" }), wasm: fixture("unreachable") });
    const result = await r.test("trap", "1.0.0", { point: "tool.before", payload: toolPayload, config: { max_limit: 1 } });
    expect(result).toMatchObject({ outcome: "failed", error: { code: "GUEST_TRAP" }, changed: false });
    expect(await code(() => r.test("trap", "1.0.0", { point: "tool.before", payload: { nope: 1 }, config: { max_limit: 1 } }))).toBe("PAYLOAD_INVALID");
    expect(await code(() => r.test("trap", "1.0.0", { point: "tool.before", payload: toolPayload, config: {} }))).toBe("PLUGIN_CONFIG_INVALID");
    expect(await r.listReleases()).toEqual([]);
    expect(await r.listBindings()).toEqual([]);
  });
});

describe("Registry: extensions as pairs, instances by id", () => {
  it("shows, in a multi-tenant set-up, each binding's pair and the bindings of its own space it pairs with", async () => {
    const r = await openRegistry();
    const points = { before: "model.chat.before", after: "model.chat.after", chunk: "model.chat.chunk" } as const;
    const chatPoints = Object.fromEntries(Object.values(points).map((p) => [p, { read: [], write: [] }]));
    for (const p of ["probe-a", "probe-b"]) await r.upload({ manifest: manifestYaml({ id: p, points: chatPoints, config_schema: { type: "object" } }), wasm: fixture("continue") });
    for (const space of ["order", "sc", "ops"]) {
      for (const p of ["probe-a", "probe-b"]) {
        for (const [at, point] of Object.entries(points)) await r.createBinding({ id: `${space}-${p}-${at}`, hook_ref: `${p}@1.0.0`, point, match: { spaces: [space] }, config: { space } });
      }
    }
    // Two bindings of probe-b at one point for the same calls: which before goes with which after is ambiguous.
    await r.createBinding({ id: "ops-probe-b-before-2", hook_ref: "probe-b@1.0.0", point: "model.chat.before", match: { spaces: ["ops"] }, config: { second: true } });
    await r.publish({ activate: true });
    const items = new Map((await r.extensions()).items.map((i) => [i.extension_id, i]));
    for (const space of ["order", "sc", "ops"]) {
      expect(items.get(`${space}-probe-a-before`)).toMatchObject({ pair_id: "ref:probe-a@1.0.0", pairs_with: [`${space}-probe-a-after`, `${space}-probe-a-chunk`], ambiguous_with: [], match: { spaces: [space] } });
      expect(items.get(`${space}-probe-a-chunk`)).toMatchObject({ pair_id: "ref:probe-a@1.0.0", pairs_with: [`${space}-probe-a-before`, `${space}-probe-a-after`] });
    }
    expect(items.get("sc-probe-b-after")).toMatchObject({ pair_id: "ref:probe-b@1.0.0", pairs_with: ["sc-probe-b-before", "sc-probe-b-chunk"] });
    expect(items.get("ops-probe-b-before")).toMatchObject({ pair_id: "binding:ops-probe-b-before", pairs_with: [], ambiguous_with: ["ops-probe-b-before-2"] });
    expect(items.get("ops-probe-b-after")).toMatchObject({ pair_id: "ref:probe-b@1.0.0", pairs_with: ["ops-probe-b-chunk"] });
  });

  it("shows each binding's pair in the extension list and matches bindings on instance ids", async () => {
    const r = await openRegistry();
    await r.upload({ manifest: LIMIT_MANIFEST, wasm: LIMIT_WASM });
    await r.createBinding({ id: "limit-researchers", hook_ref: LIMIT, point: "tool.before", extension: "research-limit", match: { instance_ids: ["researcher-*"] }, config: { max_limit: 10 } });
    await r.createBinding({ id: "limit-all", hook_ref: LIMIT, point: "tool.before", priority: 200, config: { max_limit: 100 } });
    await r.publish({ activate: true });
    expect((await r.extensions()).items.map((i) => [i.extension_id, i.pair_id])).toEqual([["limit-researchers", "ext:research-limit"], ["limit-all", "ref:order-search-limit@1.0.0"]]);
    let received: Record<string, unknown> | undefined;
    const call = (instanceId: string) => r.host.tool({ spaceId: "s1", instanceId }, toolCall(500), async (args) => { received = args; return {}; });
    await call("researcher-3");
    expect(received).toMatchObject({ limit: 10 });
    await call("writer-1");
    expect(received).toMatchObject({ limit: 100 });
    expect(await code(() => r.createBinding({ id: "bad-ext", hook_ref: LIMIT, point: "tool.before", extension: "Not An Id" }))).toBe("BINDING_INVALID");
  });

  it("shows pii-redact's after binding as streamed by its chunk hook (stream_rewrite: chunk, from its hook.yaml), and a registry-published pair streams", async () => {
    const r = await openRegistry();
    await r.upload({ manifest: readFileSync(new URL("../../plugins/pii-redact/hook.yaml", import.meta.url), "utf8"), wasm: pluginWasm("pii-redact") });
    await r.createBinding({ id: "redact-answer", hook_ref: "pii-redact@1.0.0", point: "model.chat.after", priority: 40 });
    await r.createBinding({ id: "redact-stream", hook_ref: "pii-redact@1.0.0", point: "model.chat.chunk", priority: 10 });
    await r.publish({ activate: true });
    const items = (await r.extensions()).items;
    expect(items.map((i) => [i.extension_id, i.stream_rewrite])).toEqual([["redact-answer", "chunk"], ["redact-stream", undefined]]);
    const stages = r.host.begin({ spaceId: "s1" }, { purpose: "action", instance: "main", spaceId: "s1" });
    expect(stages.streamPlan({ payload: {}, reports: [], reached: -1, carries: {} })).toMatchObject({ hold: false, readOnly: new Set(["redact-answer"]) });
    stages.end();
  });
});
