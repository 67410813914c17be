/** Records, resume and audit inside one process (the crash cases are in crash.test.ts). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, createMemoryPayloads, createMemoryRecords, SluiceError, type Host, type OperationStore } from "../../host/index.js";
import { fixture } from "../helpers/fixtures.js";
import { call, ctx, MARKER, TOOL_RESULT } from "./scenarios.js";
import { until } from "../helpers/until.js";

const guest = "contract@1.0.0";
let records: OperationStore;
let payloads: ReturnType<typeof createMemoryPayloads>;
let host: Host;
let revision = 0;
let tag = "";
let waitingForAbort = 0;
beforeAll(async () => {
  records = createMemoryRecords();
  payloads = createMemoryPayloads({ retentionMs: 60_000 });
  host = createHost({ workers: 1, records, payloads });
  await host.loadPlugin({ id: "contract", version: "1.0.0", wasm: fixture("contract-hook") });
  host.registerHook("tag", () => ({ kind: "patch_output", patch: [{ op: "replace", path: "/view", value: `${TOOL_RESULT}${tag}` }] }));
  host.registerHook("wait-for-abort", (_req, { signal }) => { waitingForAbort++; return new Promise((_, reject) => signal.addEventListener("abort", () => reject(new Error("aborted")))); });
});
afterAll(() => host.close());

const activate = (bindings: Parameters<Host["activate"]>[0]["bindings"]) => host.activate({ revision: ++revision, bindings });

describe("operation records and audit", () => {
  it("audits every hook with plugin, code hash and chained digests, and no content", async () => {
    activate([
      { id: "b-guest", hookRef: guest, point: "tool.before", config: { mode: "patch", path: "/arguments/q", value: "patched" } },
      { id: "b-trusted", hookRef: "tag", point: "tool.after" },
    ]);
    tag = "!";
    const from = Date.now();
    const r = await host.tool(ctx, call, async () => TOOL_RESULT);
    expect(r.ok).toBe(true);
    const rec = (await records.get(r.facts.operationId))!;
    const [before, after] = await records.audit({ operationId: r.facts.operationId });
    const plugin = await host.loadPlugin({ id: "contract", version: "1.0.0", wasm: fixture("contract-hook") });
    expect(before).toMatchObject({ bindingId: "b-guest", hookRef: guest, codeSha256: plugin.module.sha256, phase: "before", outcome: "patch_input", errorCode: null });
    expect(after).toMatchObject({ bindingId: "b-trusted", hookRef: "tag", codeSha256: "in-process", phase: "after", outcome: "patch_output" });
    // The before hook's output is the final input the record refers to; its patch has a digest of its own.
    expect(before!.outputDigest).toBe(rec.finalInputRef);
    expect(before!.inputDigest).not.toBe(before!.outputDigest);
    expect(before!.patchDigest).toBe(host.digestOf([{ op: "replace", path: "/arguments/q", value: "patched" }]));
    expect(rec).toMatchObject({ phase: "finished", outcome: "succeeded", realStatus: "succeeded", realResultRef: host.digestOf(TOOL_RESULT), effectiveOutputRef: host.digestOf(r.ok && r.output) });
    expect(rec.completed).toEqual([{ point: "tool.before", bindingId: "b-guest" }, { point: "tool.after", bindingId: "b-trusted" }]);
    expect((await records.audit({ bindingId: "b-trusted", from, to: Date.now() + 1 })).map((a) => a.operationId)).toContain(r.facts.operationId);
    expect(JSON.stringify(await records.audit())).not.toContain(MARKER);
  });

  it("keeps full payloads only in the opt-in payload store, by the digests the records hold", async () => {
    activate([{ id: "b-trusted", hookRef: "tag", point: "tool.after" }]);
    const r = await host.tool(ctx, call, async () => TOOL_RESULT);
    const rec = (await records.get(r.facts.operationId))!;
    expect(await payloads.get(rec.finalInputRef!)).toMatchObject({ arguments: { q: MARKER } });
    expect(await payloads.get(rec.realResultRef!)).toBe(TOOL_RESULT);
    expect(await payloads.get(rec.effectiveOutputRef!)).toEqual(r.ok && r.output);
    expect(await payloads.get(rec.finalInputRef!, Date.now() + 60_001)).toBeUndefined();
  });
});

describe("resume", () => {
  it("a cancelled after stage stays resumable, a cancelled resume too, and the tool runs once", async () => {
    activate([{ id: "slow", hookRef: "wait-for-abort", point: "tool.after", timeoutMs: 30_000 }]);
    let calls = 0;
    const controller = new AbortController();
    const waiting = waitingForAbort;
    void until(() => waitingForAbort > waiting).then(() => controller.abort());
    const first = await host.tool({ ...ctx, signal: controller.signal }, call, async () => { calls++; return TOOL_RESULT; });
    const id = first.facts.operationId;
    expect(!first.ok && first.error.code).toBe("CALL_CANCELLED");
    expect(await records.get(id)).toMatchObject({ phase: "after", realStatus: "succeeded", outcome: "cancelled" });

    const deadline = await host.resume(id, { deadline: Date.now() + 50 });
    // A deadline that passes inside an after hook of a resume is DEADLINE_EXCEEDED, as in every phase.
    expect(!deadline.ok && deadline.error.code).toBe("DEADLINE_EXCEEDED");
    expect(await records.get(id)).toMatchObject({ phase: "after", outcome: "cancelled", resumes: 1 });

    tag = "-fixed";
    activate([{ id: "fixed", hookRef: "tag", point: "tool.after" }]);
    const done = await host.resume(id);
    expect(done.ok && done.output).toEqual({ status: "succeeded", view: `${TOOL_RESULT}-fixed`, callId: call.callId });
    expect(done.facts).toMatchObject({ realResult: TOOL_RESULT, idempotencyKey: id, resumedRevision: revision });
    expect(calls).toBe(1);
  });

  it("refuses unknown ids, finished operations and operations that never ran", async () => {
    activate([{ id: "reject", hookRef: guest, point: "tool.before", config: { mode: "reject", code: "no", reason: "no" } }]);
    const rejected = await host.tool(ctx, call, async () => TOOL_RESULT);
    expect(await records.get(rejected.facts.operationId)).toMatchObject({ phase: "finished", outcome: "rejected", realStatus: "not_started" });
    const r = await host.resume(rejected.facts.operationId);
    expect(!r.ok && r.error.code).toBe("OPERATION_NOT_RESUMABLE");
    const missing = await host.resume("no-such-operation");
    expect(!missing.ok && missing.error.code).toBe("OPERATION_NOT_FOUND");
  });

  it("a store that cannot write refuses the call before the tool runs", async () => {
    const full = createMemoryRecords();
    // The first write of an operation is its "running" record, just before the call.
    const broken: OperationStore = { ...full, insert: () => { throw new SluiceError("STORE_FULL", "disk full"); }, update: () => { throw new SluiceError("STORE_FULL", "disk full"); } };
    const h = createHost({ workers: 1, records: broken });
    let calls = 0;
    const r = await h.tool(ctx, call, async () => { calls++; return TOOL_RESULT; });
    await h.close();
    expect(!r.ok && r.error.code).toBe("STORE_FULL");
    expect(r.facts).toMatchObject({ called: false, realStatus: "not_started" });
    expect(calls).toBe(0);
  });

  it("a host without a records store records nothing and cannot resume", async () => {
    const h = createHost({ workers: 1 });
    const r = await h.tool(ctx, call, async () => TOOL_RESULT);
    expect(r.ok).toBe(true);
    expect(h.records).toBeUndefined();
    // A boundary call never throws: the missing store is a returned CONFIG_INVALID.
    const resumed = await h.resume(r.facts.operationId);
    expect(!resumed.ok && resumed.error.code).toBe("CONFIG_INVALID");
    await h.close();
  });
});
