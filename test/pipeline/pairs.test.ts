import { describe, expect, it } from "vitest";
import { pairIds, pairings, type PairInput } from "../../host/pipeline/pairs.js";
import { globsMeet, matchesOverlap } from "../../host/pipeline/match-overlap.js";
import { resolveRelease } from "../../host/pipeline/release.js";

describe("pairIds: which bindings form one extension", () => {
  it("pairs a plugin bound once per point by its hook ref", () => {
    const pairs = pairIds([
      { id: "a", hookRef: "cache@1", point: "model.chat.before" },
      { id: "b", hookRef: "cache@1", point: "model.chat.after" },
      { id: "c", hookRef: "cache@1", point: "model.chat.chunk" },
    ]);
    expect([...pairs.values()]).toEqual(["ref:cache@1", "ref:cache@1", "ref:cache@1"]);
  });

  it("makes each binding its own pair when a plugin is bound several times at a point for the same calls without extension ids", () => {
    const pairs = pairIds([
      { id: "pre-1", hookRef: "p@1", point: "tool.before", config: { n: 1 } },
      { id: "pre-2", hookRef: "p@1", point: "tool.before", config: { n: 2 } },
      { id: "post", hookRef: "p@1", point: "tool.after" },
    ]);
    // The after binding is the plugin's only one at its point: it keeps its ref, and no before binding shares it.
    expect(Object.fromEntries(pairs)).toEqual({ "pre-1": "binding:pre-1", "pre-2": "binding:pre-2", post: "ref:p@1" });
  });

  it("pairs a plugin bound once per point in each of several spaces by its hook ref, each binding with its own space's counterparts", () => {
    const bindings: PairInput[] = ["order", "sc"].flatMap((space) => (["model.chat.before", "model.chat.after", "model.chat.chunk"] as const).map((point) => ({
      id: `${space}-${point.split(".")[2]}`, hookRef: "probe@1", point, match: { spaces: [space] }, config: { tag: space },
    })));
    const p = pairings(bindings);
    expect([...p.values()].map((x) => x.pair)).toEqual(Array(6).fill("ref:probe@1"));
    expect(p.get("order-before")).toEqual({ pair: "ref:probe@1", pairsWith: ["order-after", "order-chunk"], ambiguousWith: [] });
    expect(p.get("sc-after")).toEqual({ pair: "ref:probe@1", pairsWith: ["sc-before", "sc-chunk"], ambiguousWith: [] });
  });

  it("makes bindings whose matches overlap (spaces, tools, instance-id patterns) their own pairs, and keeps disjoint ones paired", () => {
    const at = (id: string, match: PairInput["match"], extra: Partial<PairInput> = {}): PairInput => ({ id, hookRef: "p@1", point: "tool.before", match, config: { id }, ...extra });
    const p = pairings([
      at("both-spaces", { spaces: ["a", "b"] }),
      at("space-b", { spaces: ["b"] }),
      at("space-c", { spaces: ["c"] }),
      at("researchers", { spaces: ["d"], instanceIds: ["researcher-*"] }),
      at("firsts", { spaces: ["d"], instanceIds: ["*-1"] }),
      at("writers", { spaces: ["e"], instanceIds: ["writer-*"] }),
      at("auditors", { spaces: ["e"], instanceIds: ["auditor-*"] }),
      at("disabled", {}, { enabled: false }),
      { id: "after", hookRef: "p@1", point: "tool.after", match: { spaces: ["b", "c"] } },
    ]);
    expect(Object.fromEntries([...p].map(([id, x]) => [id, x.pair]))).toEqual({
      "both-spaces": "binding:both-spaces", "space-b": "binding:space-b", "space-c": "ref:p@1",
      researchers: "binding:researchers", firsts: "binding:firsts", writers: "ref:p@1", auditors: "ref:p@1",
      disabled: "ref:p@1", after: "ref:p@1",
    });
    expect(p.get("space-b")!.ambiguousWith).toEqual(["both-spaces"]);
    expect(p.get("after")!.pairsWith).toEqual(["space-c"]);
    expect(p.get("disabled")!.pairsWith).toEqual([]);
  });

  it("keeps a plugin bound twice with the same config paired: where both match, it runs once (matchBindings)", () => {
    const pairs = pairIds([
      { id: "agent", hookRef: "p@1", point: "tool.before", config: { max: 1 } },
      { id: "tool", hookRef: "p@1", point: "tool.before", match: { toolIds: ["search"] }, config: { max: 1 } },
      { id: "post", hookRef: "p@1", point: "tool.after" },
    ]);
    expect([...pairs.values()]).toEqual(["ref:p@1", "ref:p@1", "ref:p@1"]);
  });

  it("pairs by extension id, whatever the plugin", () => {
    const pairs = pairIds([
      { id: "pre-1", hookRef: "p@1", point: "tool.before", extension: "one" },
      { id: "pre-2", hookRef: "p@1", point: "tool.before", extension: "two" },
      { id: "post-2", hookRef: "p@1", point: "tool.after", extension: "two" },
    ]);
    expect(Object.fromEntries(pairs)).toEqual({ "pre-1": "ext:one", "pre-2": "ext:two", "post-2": "ext:two" });
  });

  it("does not count diagnostic and lifecycle bindings as making a plugin ambiguous", () => {
    const pairs = pairIds([
      { id: "e1", hookRef: "p@1", point: "operation.error" },
      { id: "e2", hookRef: "p@1", point: "operation.error" },
      { id: "pre", hookRef: "p@1", point: "tool.before" },
    ]);
    expect(pairs.get("pre")).toBe("ref:p@1");
  });

  it("is resolved into every binding of a release, and an empty extension id is refused", () => {
    const release = resolveRelease({ revision: 1, bindings: [{ id: "a", hookRef: "p@1", point: "tool.before", extension: "x" }, { id: "b", hookRef: "p@1", point: "tool.after" }] });
    expect(release.bindings.map((b) => b.pair)).toEqual(["ext:x", "ref:p@1"]);
    expect(() => resolveRelease({ revision: 1, bindings: [{ id: "a", hookRef: "p@1", point: "tool.before", extension: "" }] })).toThrow(/extension must be a non-empty string/);
  });
});

describe("matchesOverlap: can one call match both bindings", () => {
  it("reads absent filters as anything and empty ones as nothing", () => {
    expect(matchesOverlap({}, {})).toBe(true);
    expect(matchesOverlap({ spaces: ["a"] }, {})).toBe(true);
    expect(matchesOverlap({ spaces: [] }, {})).toBe(false);
    expect(matchesOverlap({ spaces: ["a"] }, { spaces: ["b"] })).toBe(false);
    expect(matchesOverlap({ spaces: ["a"], purposes: ["action"] }, { spaces: ["a"], purposes: ["compaction"] })).toBe(false);
    expect(matchesOverlap({ toolIds: ["x", "y"] }, { toolIds: ["y"] })).toBe(true);
  });

  it("tells whether two instance-id patterns share an id", () => {
    expect(globsMeet("researcher-*", "*-1")).toBe(true);
    expect(globsMeet("researcher-*", "writer-*")).toBe(false);
    expect(globsMeet("a*b", "*c*")).toBe(true); // "acb"
    expect(globsMeet("a*", "b*")).toBe(false);
    expect(globsMeet("*a", "*b")).toBe(false);
    expect(globsMeet("a*b", "a*c*b")).toBe(true);
    expect(globsMeet("main", "main")).toBe(true);
    expect(globsMeet("main", "mai")).toBe(false);
    expect(globsMeet("**", "")).toBe(true);
    expect(globsMeet("a.b*", "a*b-1")).toBe(true);
  });
});
