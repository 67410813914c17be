import { describe, expect, it } from "vitest";
import { pairIds } from "../../host/pipeline/pairs.js";
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

  it("makes each binding its own pair when a plugin is bound several times at a point without extension ids", () => {
    const pairs = pairIds([
      { id: "pre-1", hookRef: "p@1", point: "tool.before" },
      { id: "pre-2", hookRef: "p@1", point: "tool.before" },
      { id: "post", hookRef: "p@1", point: "tool.after" },
    ]);
    expect(Object.fromEntries(pairs)).toEqual({ "pre-1": "binding:pre-1", "pre-2": "binding:pre-2", post: "binding:post" });
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
