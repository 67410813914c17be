import { afterAll, describe, expect, it } from "vitest";
import { createHost, createMemoryRecords } from "../../host/index.js";
import { skippedByQuarantine } from "../../host/pipeline/skipped-hooks.js";

const records = createMemoryRecords();
const host = createHost({ records });
afterAll(() => host.close());
host.registerHook("noop", () => ({ kind: "continue" as const }));
host.activate({
  revision: 1, bindings: [
    { id: "runs", hookRef: "noop", point: "tool.before", match: { toolIds: ["search"] } },
    { id: "switched-off", hookRef: "noop", point: "tool.before", match: { toolIds: ["search"] }, enabled: false },
    { id: "other-tool", hookRef: "noop", point: "tool.before", match: { toolIds: ["fetch"] } },
    { id: "other-tool-off", hookRef: "noop", point: "tool.after", match: { toolIds: ["fetch"] }, enabled: false },
    { id: "after-runs", hookRef: "noop", point: "tool.after" },
  ],
});
const call = (toolId: string) => host.tool({ spaceId: "s" }, { toolId, name: toolId, schema: { type: "object" }, arguments: {}, callId: "c" }, async () => "done");

describe("an operation's skipped hooks", () => {
  it("are kept with its record: a disabled binding that would have matched, and bindings whose match did not admit the call", async () => {
    const r = await call("search");
    expect(r.ok).toBe(true);
    const record = await records.get(r.facts.operationId);
    expect(record?.completed.map((c) => c.bindingId)).toEqual(["runs", "after-runs"]);
    expect(record?.skipped).toEqual([
      { point: "tool.before", bindingId: "switched-off", hookRef: "noop", reason: "disabled" },
      { point: "tool.before", bindingId: "other-tool", hookRef: "noop", reason: "not_matched" },
      // Disabled and not matching: not matching is the reason (enabling it would not run it).
      { point: "tool.after", bindingId: "other-tool-off", hookRef: "noop", reason: "not_matched" },
    ]);
  });

  it("are absent from an operation that skipped nothing", async () => {
    host.activate({ revision: 2, bindings: [{ id: "runs", hookRef: "noop", point: "tool.before" }] });
    const r = await call("search");
    expect((await records.get(r.facts.operationId))?.skipped).toBeUndefined();
  });

  it("name a quarantined plugin's step, which was failed without running", () => {
    const reports = [
      { bindingId: "a", hookRef: "p@1.0.0", error: { code: "PLUGIN_QUARANTINED" } },
      { bindingId: "b", hookRef: "q@1.0.0", error: { code: "HOOK_TIMEOUT" } },
      { bindingId: "c", hookRef: "r@1.0.0" },
    ];
    expect(skippedByQuarantine("tool.before", reports)).toEqual([{ point: "tool.before", bindingId: "a", hookRef: "p@1.0.0", reason: "quarantined" }]);
  });
});
