/**
 * What the records keep at rest: real results only while their operation can
 * resume, and digests nobody can reverse by trying every short value.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createHost, createMemoryRecords, digestOf, openSqliteRecords, type Host, type OperationStore } from "../../host/index.js";
import { Registry } from "../../host/registry/registry.js";
import { tempDir } from "../registry/fixtures.js";
import { call, ctx } from "./scenarios.js";
import { until } from "../helpers/until.js";

const CANARY = "CANARY-real-result-7f3a9c";
const open: { host?: Host; records?: OperationStore }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) { await o.host?.close(); o.records?.close(); }
});

/** True when the bytes of the database or its WAL hold `text`. */
function onDisk(file: string, text: string): boolean {
  return [file, `${file}-wal`].some((f) => existsSync(f) && readFileSync(f).includes(Buffer.from(text)));
}

function setUp(options: { resultRetentionMs?: number; pruneIntervalMs?: number } = {}) {
  const file = path.join(tempDir("sluice-records-"), "records.db");
  const records = openSqliteRecords(file, options);
  const host = createHost({ workers: 1, records });
  let fail = false;
  host.registerHook("after", () => { if (fail) throw new Error("broken"); return { kind: "continue" }; });
  host.activate({ revision: 1, bindings: [{ id: "a", hookRef: "after", point: "tool.after", failurePolicy: "fail-closed" }] });
  open.push({ host, records });
  return { file, records, host, failAfter: (v: boolean) => { fail = v; } };
}

describe("real results at rest", () => {
  it("deletes the real result when the operation finishes: the secret is nowhere in the database files", async () => {
    const { file, records, host } = setUp();
    const r = await host.tool(ctx, call, async () => ({ answer: CANARY }));
    expect(r.ok).toBe(true);
    expect(await records.get(r.facts.operationId)).toMatchObject({ phase: "finished", realStatus: "succeeded" });
    expect(await records.result(r.facts.operationId)).toBeUndefined();
    await host.close();
    records.close();
    open.splice(0);
    expect(onDisk(file, CANARY)).toBe(false);
  });

  it("keeps a resumable operation's result until its retention ends, then prunes it (and it is gone from disk)", async () => {
    const { file, records, host, failAfter } = setUp({ resultRetentionMs: 60_000 });
    failAfter(true);
    const r = await host.tool(ctx, call, async () => ({ answer: CANARY }));
    expect(r.ok).toBe(false);
    const id = r.facts.operationId;
    expect(await records.get(id)).toMatchObject({ phase: "after", realStatus: "succeeded" });
    expect((await records.result(id))?.real).toEqual({ answer: CANARY });
    expect(await records.pruneResults(Date.now())).toBe(0);
    expect(await records.pruneResults(Date.now() + 60_001)).toBe(1);
    expect(await records.result(id)).toBeUndefined();
    expect(onDisk(file, CANARY)).toBe(false);
    failAfter(false);
    const resumed = await host.resume(id);
    expect(resumed.ok).toBe(false);
    expect(!resumed.ok && resumed.error.code).toBe("OPERATION_NOT_RESUMABLE");
    expect(!resumed.ok && resumed.error.message).toMatch(/retention/);
  });

  it("prunes expired results by itself", async () => {
    const { records, host, failAfter } = setUp({ resultRetentionMs: 50, pruneIntervalMs: 25 });
    failAfter(true);
    const r = await host.tool(ctx, call, async () => ({ answer: CANARY }));
    expect(await records.result(r.facts.operationId)).toBeDefined();
    await until(async () => await records.result(r.facts.operationId) === undefined, 5_000);
    expect(await records.result(r.facts.operationId)).toBeUndefined();
  });

  it("the memory store follows the same rule", async () => {
    const records = createMemoryRecords({ resultRetentionMs: 1_000 });
    const host = createHost({ workers: 1, records });
    open.push({ host });
    host.registerHook("after", () => ({ kind: "continue" }));
    host.activate({ revision: 1, bindings: [{ id: "a", hookRef: "after", point: "tool.after" }] });
    const r = await host.tool(ctx, call, async () => ({ answer: CANARY }));
    expect(await records.result(r.facts.operationId)).toBeUndefined();
  });
});

describe("keyed digests", () => {
  it("a 4-digit PIN in tool arguments cannot be recovered from finalInputRef by trying all 10,000", async () => {
    const records = createMemoryRecords();
    const host = createHost({ workers: 1, records });
    open.push({ host });
    const args = { pin: "4821" };
    const r = await host.tool(ctx, { ...call, arguments: args }, async () => ({ ok: true }));
    const ref = (await records.get(r.facts.operationId))!.finalInputRef!;
    const payload = (pin: string) => ({ tool_id: call.toolId, name: call.name, schema: call.schema, arguments: { pin }, call_id: call.callId });
    const plain = Array.from({ length: 10_000 }, (_, i) => String(i).padStart(4, "0")).filter((pin) => digestOf(payload(pin)) === ref);
    expect(plain).toEqual([]);
    // Whoever holds the key checks the payload.
    expect(ref).toMatch(/^[0-9a-f]{64}$/);
    expect((await records.get(r.facts.operationId))!.realResultRef).toBe(host.digestOf({ ok: true }));
  });

  it("the hooks' patch and output digests the caller sees are keyed too", async () => {
    const host = createHost({ workers: 1, records: createMemoryRecords(), digestSecret: "k".repeat(32) });
    open.push({ host });
    const patch = [{ op: "replace" as const, path: "/arguments/pin", value: "0000" }];
    host.registerHook("mask", () => ({ kind: "patch_input", patch }));
    host.activate({ revision: 1, bindings: [{ id: "m", hookRef: "mask", point: "tool.before" }] });
    const r = await host.tool(ctx, { ...call, arguments: { pin: "4821" } }, async () => ({}));
    expect(r.hooks[0]!.patchDigest).toBe(host.digestOf(patch));
    expect(r.hooks[0]!.patchDigest).not.toBe(digestOf(patch));
  });

  it("a registry keeps its key in the data folder (0600) and reuses it after a restart", async () => {
    const dataDir = tempDir();
    let registry = await Registry.open({ dataDir, hostOptions: { workers: 1 } });
    const first = registry.host.digestOf({ a: 1 });
    await registry.close();
    const key = path.join(dataDir, "digest.key");
    expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(readFileSync(key, "utf8").trim()).toMatch(/^[0-9a-f]{64}$/);
    registry = await Registry.open({ dataDir, hostOptions: { workers: 1 } });
    expect(registry.host.digestOf({ a: 1 })).toBe(first);
    await registry.close();
    const given = await Registry.open({ dataDir: tempDir(), hostOptions: { workers: 1 }, digestSecret: "operator-secret-0123456789" });
    expect(given.host.digestOf({ a: 1 })).not.toBe(first);
    await given.close();
  });
});
