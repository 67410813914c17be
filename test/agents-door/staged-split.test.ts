// The split tool call on a host without a records store: the stages stay open in this process
// between the agent's before and after events.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RequestEnvelope } from "../../abi/envelope.js";
import { createHost, type Host } from "../../host/index.js";
import { stagedSplitTools } from "../../host/agents/staged-split.js";
import type { ToolCall } from "../../host/boundary/tool.js";

const seen: RequestEnvelope[] = [];
const call = (command: string, callId: string): ToolCall => ({ toolId: "shell", name: "Bash", schema: { type: "object" }, arguments: { command }, callId, agent: { name: "claude-code", event: "PreToolUse", session_id: "s1", cwd: "/w" } });

describe("a split tool call on a host without a records store", () => {
  let host: Host;
  beforeAll(() => {
    host = createHost({ workers: 1 });
    host.registerHook("guard", (r) => { seen.push(r); return String((r.payload.arguments as { command: string }).command).startsWith("rm") ? { kind: "reject", code: "no_rm", reason: "guard: no deletes" } : { kind: "continue", annotations: { context: "checked" } }; });
    host.registerHook("hide", (r) => { seen.push(r); return JSON.stringify(r.payload.view).includes("SECRET") ? { kind: "patch_output", patch: [{ op: "replace", path: "/view", value: "[hidden]" }] } : { kind: "continue" }; });
    host.activate({ revision: 1, bindings: [{ id: "g", hookRef: "guard", point: "tool.before" }, { id: "h", hookRef: "hide", point: "tool.after" }] });
  });
  afterAll(() => host.close());

  it("refuses what a before hook rejects, with the hook's code and reason", async () => {
    const r = await stagedSplitTools(host).before({ spaceId: "a", runId: "s1" }, call("rm -r x", "t1"));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatchObject({ code: "HOOK_REJECTED", details: { hookCode: "no_rm", reason: "guard: no deletes" } });
  });

  it("runs tool.after on the reported result with the call's agent, and answers the view the hooks left", async () => {
    const tools = stagedSplitTools(host);
    const pre = await tools.before({ spaceId: "a", runId: "s1" }, call("cat f", "t2"));
    expect(pre).toMatchObject({ ok: true, arguments: { command: "cat f" }, annotations: { context: "checked" } });
    const after = await tools.after(pre.operationId, { status: "succeeded", result: "SECRET=1", durationMs: 3 });
    expect(after).toMatchObject({ ok: true, view: "[hidden]" });
    const last = seen.at(-1)!;
    expect(last.point).toBe("tool.after");
    expect(last.payload).toMatchObject({ tool_id: "shell", status: "succeeded", result: "SECRET=1", duration_ms: 3, agent: { name: "claude-code", cwd: "/w" } });
    expect(await tools.after(pre.operationId, { status: "succeeded", result: "again" })).toMatchObject({ ok: false, error: { code: "OPERATION_NOT_FOUND" } });
  });
});
