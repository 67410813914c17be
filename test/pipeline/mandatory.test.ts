import { describe, expect, it } from "vitest";
import type { Binding } from "../../host/pipeline/bindings.js";
import { chunkOrder, joinRecheck, recheckOf } from "../../host/pipeline/mandatory.js";
import type { StageResult, StepReport } from "../../host/pipeline/run-steps.js";

const binding = (id: string, mandatory = false): { binding: Binding } => ({
  binding: { id, hookRef: `${id}@1`, point: "tool.before", match: {}, priority: 100, order: 0, timeoutMs: 1000, failurePolicy: "fail-closed", observeOnly: false, config: {}, enabled: true, mandatory, pair: `ref:${id}@1` },
});
const report = (bindingId: string, changed = false): StepReport => ({ bindingId, hookRef: `${bindingId}@1`, outcome: changed ? "patch_input" : "continue", durationMs: 0, ...(changed ? { patchDigest: "p", outputDigest: "o" } : {}) });
const result = (reports: StepReport[], extra: Partial<StageResult> = {}): StageResult => ({ payload: {}, reports, reached: reports.length - 1, carries: {}, ...extra });

describe("mandatory bindings have the last word", () => {
  const guard = binding("guard", true);
  const hooks = [guard, binding("a"), binding("b")];

  it("runs a mandatory binding again when a later hook changed the payload", () => {
    expect(recheckOf(hooks, result([report("guard"), report("a", true), report("b")]))).toEqual([guard]);
  });

  it("does not run it again when nothing after it changed the payload (its own patch included)", () => {
    expect(recheckOf(hooks, result([report("guard", true), report("a"), report("b")]))).toEqual([]);
  });

  it("does not run it again when the stage stopped or failed: nothing crosses the boundary", () => {
    const stopped = result([report("guard"), report("a", true)], { stop: { kind: "reject", bindingId: "a", code: "x", reason: "" } });
    expect(recheckOf(hooks, stopped)).toEqual([]);
    expect(recheckOf(hooks, result([report("guard"), report("a", true)], { failure: { code: "HOOK_FAILED", message: "m" } }))).toEqual([]);
  });

  it("joins the passes: the second decides, both passes' reports are kept, unwinding counts the first", () => {
    const first = result([report("guard"), report("a", true), report("b")], { carries: { x: 1 } });
    const second = result([report("guard", true)], { payload: { final: true }, carries: { y: 2 } });
    expect(joinRecheck(first, second)).toEqual({ payload: { final: true }, reports: [...first.reports, ...second.reports], reached: 2, carries: { x: 1, y: 2 } });
  });

  it("puts mandatory chunk bindings last, keeping each group's order", () => {
    const [m1, a, m2, b] = [binding("m1", true), binding("a"), binding("m2", true), binding("b")].map((h) => h.binding);
    expect(chunkOrder([m1!, a!, m2!, b!]).map((x) => x.id)).toEqual(["a", "b", "m1", "m2"]);
  });
});
