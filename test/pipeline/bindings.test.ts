import { describe, expect, it } from "vitest";
import { afterOrder, matchBindings, type Binding, type MatchTarget } from "../../host/pipeline/bindings.js";

let next = 0;
function binding(id: string, over: Partial<Binding> = {}): Binding {
  const b = {
    id, hookRef: `${id}@1`, point: "tool.before" as const, match: {}, priority: 100, order: next++, timeoutMs: 1000,
    failurePolicy: "fail-open" as const, observeOnly: false, config: {}, enabled: true, mandatory: false, ...over,
  };
  return { ...b, pair: over.pair ?? `ref:${b.hookRef}` };
}
const target: MatchTarget = { purpose: "action", toolId: "search", modelId: "gpt-x", instance: "main", spaceId: "s1" };
const ids = (bs: Binding[]) => bs.map((b) => b.id);

describe("matchBindings: order", () => {
  it("runs lower priority first, ties by binding order", () => {
    const bs = [binding("c", { priority: 200, order: 0 }), binding("b", { priority: 100, order: 2 }), binding("a", { priority: 100, order: 1 })];
    expect(ids(matchBindings(bs, "tool.before", target))).toEqual(["a", "b", "c"]);
  });

  it("runs mandatory bindings first whatever their priority", () => {
    const bs = [binding("user", { priority: -1000 }), binding("platform", { priority: 9999, mandatory: true })];
    expect(ids(matchBindings(bs, "tool.before", target))).toEqual(["platform", "user"]);
  });

  it("does not depend on the order of the input list", () => {
    const bs = [binding("a", { priority: 1 }), binding("b", { priority: 2 }), binding("c", { priority: 2, mandatory: true })];
    expect(ids(matchBindings([...bs].reverse(), "tool.before", target))).toEqual(ids(matchBindings(bs, "tool.before", target)));
  });

  it("does not reorder the caller's list", () => {
    const bs = [binding("b", { priority: 2 }), binding("a", { priority: 1 })];
    matchBindings(bs, "tool.before", target);
    expect(ids(bs)).toEqual(["b", "a"]);
  });
});

describe("matchBindings: filtering", () => {
  it("keeps only bindings of the point", () => {
    expect(ids(matchBindings([binding("a"), binding("b", { point: "tool.after" })], "tool.before", target))).toEqual(["a"]);
  });

  it("skips disabled bindings but never a disabled mandatory one", () => {
    const bs = [binding("off", { enabled: false }), binding("platform", { enabled: false, mandatory: true })];
    expect(ids(matchBindings(bs, "tool.before", target))).toEqual(["platform"]);
  });

  it.each([
    ["purpose", { purposes: ["compaction"] }, { purposes: ["action", "completion"] }],
    ["tool", { toolIds: ["write"] }, { toolIds: ["search"] }],
    ["model", { modelIds: ["gpt-y"] }, { modelIds: ["gpt-x"] }],
    ["instance", { instances: ["child"] }, { instances: ["main", "child"] }],
    ["space", { spaces: ["s2"] }, { spaces: ["s1"] }],
  ] as const)("filters by %s", (_, miss, hit) => {
    expect(matchBindings([binding("x", { match: miss })], "tool.before", target)).toEqual([]);
    expect(ids(matchBindings([binding("x", { match: hit })], "tool.before", target))).toEqual(["x"]);
  });

  it("matches child instances only when the binding lists them", () => {
    const child: MatchTarget = { ...target, instance: "child" };
    expect(ids(matchBindings([binding("main-only", { match: { instances: ["main"] } }), binding("any")], "tool.before", child))).toEqual(["any"]);
  });

  it("does not match a filter on a field the call lacks, and an empty filter matches nothing", () => {
    const noTool: MatchTarget = { instance: "main", spaceId: "s1", purpose: "action" };
    expect(matchBindings([binding("x", { match: { toolIds: ["search"] } })], "tool.before", noTool)).toEqual([]);
    expect(matchBindings([binding("x", { match: { toolIds: [] } })], "tool.before", target)).toEqual([]);
  });

  it("requires every present filter to match", () => {
    const b = binding("x", { match: { toolIds: ["search"], instances: ["child"] } });
    expect(matchBindings([b], "tool.before", target)).toEqual([]);
  });
});

describe("matchBindings: dedupe", () => {
  it("runs a binding listed twice once", () => {
    const b = binding("a");
    expect(ids(matchBindings([b, { ...b }], "tool.before", target))).toEqual(["a"]);
  });

  it("runs the same hook with the same config bound at two scopes once, at the earlier position", () => {
    const agentScope = binding("agent-scope", { hookRef: "limit@1", config: { max: 100, mode: "x" }, priority: 50 });
    const toolScope = binding("tool-scope", { hookRef: "limit@1", config: { mode: "x", max: 100 }, priority: 10, match: { toolIds: ["search"] } });
    const other = binding("other", { priority: 20 });
    expect(ids(matchBindings([agentScope, other, toolScope], "tool.before", target))).toEqual(["tool-scope", "other"]);
  });

  it("runs the same hook twice when its configs differ", () => {
    const a = binding("a", { hookRef: "limit@1", config: { max: 100 } });
    const b = binding("b", { hookRef: "limit@1", config: { max: 50 } });
    expect(ids(matchBindings([a, b], "tool.before", target))).toEqual(["a", "b"]);
  });

  it("never lets a duplicate weaken the surviving binding", () => {
    const strict = binding("strict", { hookRef: "guard@1", failurePolicy: "fail-closed", priority: 50 });
    const lax = binding("lax", { hookRef: "guard@1", failurePolicy: "fail-open", observeOnly: true, priority: 10 });
    const [only, ...rest] = matchBindings([strict, lax], "tool.before", target);
    expect(rest).toEqual([]);
    expect(only).toMatchObject({ id: "lax", failurePolicy: "fail-closed", observeOnly: false });
    expect(lax.failurePolicy).toBe("fail-open");
  });
});

describe("afterOrder", () => {
  const a = binding("a", { point: "tool.after", hookRef: "A", priority: 1 });
  const b = binding("b", { point: "tool.after", hookRef: "B", priority: 2 });
  const c = binding("c", { point: "tool.after", hookRef: "C", priority: 3 });
  const after = matchBindings([c, a, b], "tool.after", target);
  const before = [binding("A-before", { hookRef: "A" }), binding("B-before", { hookRef: "B" }), binding("C-before", { hookRef: "C" })];

  it("keeps the before order in staged mode", () => {
    expect(ids(afterOrder(after, "staged"))).toEqual(["a", "b", "c"]);
  });

  it("reverses the order in symmetric mode", () => {
    expect(ids(afterOrder(after, "symmetric"))).toEqual(["c", "b", "a"]);
  });

  it("unwinds from a short-circuit in symmetric mode: only plugins whose before hook was reached", () => {
    expect(ids(afterOrder(after, "symmetric", { before, reached: 2 }))).toEqual(["b", "a"]);
    expect(ids(afterOrder(after, "symmetric", { before, reached: 1 }))).toEqual(["a"]);
  });

  it("still runs after-only hooks when unwinding, since they guard the output whatever produced it", () => {
    const guard = binding("guard", { point: "tool.after", hookRef: "G", priority: 0 });
    expect(ids(afterOrder([guard, ...after], "symmetric", { before, reached: 1 }))).toEqual(["a", "guard"]);
  });

  it("runs every after hook in staged mode even after a short-circuit", () => {
    expect(ids(afterOrder(after, "staged", { before, reached: 1 }))).toEqual(["a", "b", "c"]);
  });

  it("returns a new list", () => {
    const result = afterOrder(after, "staged");
    expect(result).not.toBe(after);
  });
});

describe("afterOrder: mandatory bindings and instance ids", () => {
  it("never unwinds a mandatory after binding away, even when its pair's before hook was not reached", () => {
    const before = [binding("P-before", { hookRef: "P" }), binding("Q-before", { hookRef: "Q" })];
    const p = binding("p", { point: "tool.after", hookRef: "P", priority: 1 });
    const q = binding("q", { point: "tool.after", hookRef: "Q", priority: 2, mandatory: true });
    expect(ids(afterOrder([q, p], "symmetric", { before, reached: 1 }))).toEqual(["p", "q"]);
  });

  it("matches a particular instance by exact id or by a * pattern, and nothing else", () => {
    const only = binding("only", { match: { instanceIds: ["researcher-*", "auditor"] } });
    const at = (instanceId: string) => ids(matchBindings([only], "tool.before", { ...target, instance: instanceId === "main" ? "main" : "child", instanceId }));
    expect(at("researcher-1")).toEqual(["only"]);
    expect(at("auditor")).toEqual(["only"]);
    expect(at("auditor-2")).toEqual([]);
    expect(at("writer")).toEqual([]);
    expect(at("main")).toEqual([]);
  });

  it("reads a pattern's other characters literally", () => {
    const dotted = binding("dotted", { match: { instanceIds: ["a.b*"] } });
    const at = (instanceId: string) => ids(matchBindings([dotted], "tool.before", { ...target, instance: "child", instanceId }));
    expect(at("a.b-1")).toEqual(["dotted"]);
    expect(at("axb-1")).toEqual([]);
  });
});

describe("matchBindings: extensions", () => {
  it("keeps two named extensions of the same plugin and config apart, while unnamed duplicates still run once", () => {
    const one = binding("one", { hookRef: "p@1", pair: "ext:one" });
    const two = binding("two", { hookRef: "p@1", pair: "ext:two" });
    const dupA = binding("dup-a", { hookRef: "q@1", pair: "binding:dup-a" });
    const dupB = binding("dup-b", { hookRef: "q@1", pair: "binding:dup-b" });
    expect(ids(matchBindings([one, two, dupA, dupB], "tool.before", target))).toEqual(["one", "two", "dup-a"]);
  });
});
