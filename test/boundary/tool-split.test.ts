/**
 * A tool call whose before and after arrive as two requests (a coding agent runs the tool
 * itself): one operation on the one lifecycle, awaiting its result in the records between
 * the two, on any host that shares them.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, createMemoryRecords, openSqliteRecords, type Host, type OperationStore } from "../../host/index.js";
import type { ToolCall } from "../../host/boundary/tool.js";

const ctx = { spaceId: "space-1", runId: "session-1" };
const call: ToolCall = { toolId: "shell", name: "Bash", schema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] }, arguments: { command: "rm -r ./data" }, callId: "toolu_1" };
const seen: { point: string; carry?: unknown; view?: unknown; status?: unknown }[] = [];

function hostOn(records: OperationStore): Host {
  const host = createHost({ workers: 1, records });
  // One extension bound before and after the tool: its pre hook's carry reaches its own post hook.
  host.registerHook("guard", (req) => {
    if (req.point === "tool.before") return { kind: "patch_input", patch: [{ op: "replace", path: "/arguments/command", value: "rm -r ./data/tmp" }], carry: "from-pre" };
    seen.push({ point: req.point, carry: req.carry, view: req.payload.view, status: req.payload.status });
    return { kind: "patch_output", patch: [{ op: "replace", path: "/view", value: "[redacted]" }] };
  });
  host.registerHook("deny", () => ({ kind: "reject", code: "shell.recursive_delete", reason: "recursive deletes are not allowed" }));
  host.registerHook("watch-end", (req) => { seen.push({ point: req.point, status: req.payload.real_status }); return { kind: "continue" }; });
  host.activate({
    revision: 1,
    bindings: [
      { id: "clamp", hookRef: "guard", point: "tool.before" },
      { id: "watch-after", hookRef: "guard", point: "tool.after" },
      { id: "watch-error", hookRef: "watch-end", point: "operation.error" },
    ],
  });
  return host;
}

describe("a tool call split across two requests", () => {
  let records: OperationStore;
  let host: Host;
  beforeAll(() => { records = createMemoryRecords(); host = hostOn(records); });
  afterAll(() => host.close());

  it("answers the final arguments, then runs tool.after on the reported result with the before hook's carry, as one recorded operation", async () => {
    seen.length = 0;
    const pre = await host.toolBefore(ctx, call);
    expect(pre.ok && pre.output).toEqual({ kind: "awaiting", callId: "toolu_1", arguments: { command: "rm -r ./data/tmp" } });
    expect(pre.facts).toMatchObject({ called: true, realStatus: "running" });
    const id = pre.facts.operationId;
    expect(await records.get(id)).toMatchObject({ phase: "awaiting", realStatus: "running", owner: null });

    const post = await host.toolAfter(id, { status: "succeeded", result: "removed 3 files" });
    expect(post.ok && post.output).toEqual({ status: "succeeded", view: "[redacted]", callId: "toolu_1" });
    expect(post.facts).toMatchObject({ operationId: id, realStatus: "succeeded", realResult: "removed 3 files" });
    expect(post.facts.resumedRevision).toBeUndefined();
    expect(seen).toEqual([{ point: "tool.after", carry: "from-pre", view: "removed 3 files", status: "succeeded" }]);
    const rec = await records.get(id);
    expect(rec).toMatchObject({ phase: "finished", outcome: "succeeded", realStatus: "succeeded", owner: null, resumes: 0 });
    expect(rec!.completed).toEqual([{ point: "tool.before", bindingId: "clamp" }, { point: "tool.after", bindingId: "watch-after" }]);
  });

  it("applies a result reported twice once: the second report is refused with OPERATION_NOT_AWAITING", async () => {
    seen.length = 0;
    const pre = await host.toolBefore(ctx, call);
    const id = pre.facts.operationId;
    expect((await host.toolAfter(id, { status: "succeeded", result: "ok" })).ok).toBe(true);
    const again = await host.toolAfter(id, { status: "succeeded", result: "ok" });
    expect(again.ok || again.error.code).toBe("OPERATION_NOT_AWAITING");
    expect(again.ok || again.error.message).toContain("its result was reported already (it ended succeeded)");
    expect(seen.filter((s) => s.point === "tool.after")).toHaveLength(1);
  });

  it("leaves nothing awaiting when a before hook rejects", async () => {
    host.activate({ revision: 2, bindings: [{ id: "deny", hookRef: "deny", point: "tool.before" }] });
    try {
      const pre = await host.toolBefore(ctx, call);
      expect(pre.ok || pre.error.code).toBe("HOOK_REJECTED");
      expect(pre.ok || pre.error.details).toMatchObject({ reason: "recursive deletes are not allowed", hookCode: "shell.recursive_delete" });
      expect(pre.facts).toMatchObject({ called: false, realStatus: "not_started" });
      const post = await host.toolAfter(pre.facts.operationId, { status: "succeeded", result: "x" });
      expect(post.ok || post.error.code).toBe("OPERATION_NOT_AWAITING");
    } finally {
      host.activate({ revision: 3, bindings: [
        { id: "clamp", hookRef: "guard", point: "tool.before" },
        { id: "watch-after", hookRef: "guard", point: "tool.after" },
        { id: "watch-error", hookRef: "watch-end", point: "operation.error" },
      ] });
    }
  });

  it("ends a tool that failed where it ran as failed: tool.after sees the failure, then operation.error runs", async () => {
    seen.length = 0;
    const pre = await host.toolBefore(ctx, call);
    const post = await host.toolAfter(pre.facts.operationId, { status: "failed" });
    expect(post.ok || post.error.code).toBe("OPERATION_FAILED");
    expect(post.facts.realStatus).toBe("failed");
    expect(seen.map((s) => [s.point, s.status])).toEqual([["tool.after", "failed"], ["operation.error", "failed"]]);
    expect(await records.get(pre.facts.operationId)).toMatchObject({ phase: "finished", outcome: "failed", realStatus: "failed" });
  });

  it("ends a call whose result never came as unknown, OPERATION_RESULT_MISSING, never retried", async () => {
    const pre = await host.toolBefore(ctx, call);
    const post = await host.toolAfter(pre.facts.operationId, { status: "unknown", reason: "expired" });
    expect(post.ok || post.error.code).toBe("OPERATION_RESULT_MISSING");
    expect(await records.get(pre.facts.operationId)).toMatchObject({ phase: "finished", realStatus: "unknown" });
  });

  it("is not marked unknown by start-up recovery while it awaits its result", async () => {
    const pre = await host.toolBefore(ctx, call);
    expect(await host.recover()).not.toContain(pre.facts.operationId);
    expect(await records.get(pre.facts.operationId)).toMatchObject({ phase: "awaiting", realStatus: "running" });
    expect((await host.toolAfter(pre.facts.operationId, { status: "succeeded", result: "ok" })).ok).toBe(true);
  });

  it("refuses to split a call on a host without a records store, with CONFIG_INVALID, before the tool could run", async () => {
    const bare = createHost({ workers: 1 });
    try {
      const pre = await bare.toolBefore(ctx, call);
      expect(pre.ok || pre.error.code).toBe("CONFIG_INVALID");
      expect(pre.facts.realStatus).toBe("not_started");
    } finally {
      await bare.close();
    }
  });
});

describe("a split tool call on two hosts sharing one records store", () => {
  it("is taken up by the host that gets the after request", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "sluice-split-")), "records.db");
    const a = hostOn(openSqliteRecords(file));
    const b = hostOn(openSqliteRecords(file));
    try {
      seen.length = 0;
      const pre = await a.toolBefore(ctx, call);
      expect(pre.ok).toBe(true);
      const post = await b.toolAfter(pre.facts.operationId, { status: "succeeded", result: "done" });
      expect(post.ok && post.output.view).toBe("[redacted]");
      expect(seen).toEqual([{ point: "tool.after", carry: "from-pre", view: "done", status: "succeeded" }]);
      const again = await a.toolAfter(pre.facts.operationId, { status: "succeeded", result: "done" });
      expect(again.ok || again.error.code).toBe("OPERATION_NOT_AWAITING");
    } finally {
      await a.close();
      await b.close();
    }
  });
});
