// Imports point one way (the layers: test/package/layers.test.ts): no file of host/ or abi/ reaches itself through its imports, type-only imports
// included (a type import that closes a circle is still a design knot).
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/fixtures.js";
import { sources } from "../helpers/sources.js";
import { importGraph } from "../helpers/import-graph.js";

function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const done = new Set<string>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    stack.push(node);
    for (const dep of graph.get(node) ?? []) {
      const at = stack.indexOf(dep);
      if (at >= 0) found.push([...stack.slice(at), dep]);
      else if (!done.has(dep) && graph.has(dep)) visit(dep);
    }
    stack.pop();
    done.add(node);
  };
  for (const node of graph.keys()) if (!done.has(node)) visit(node);
  return found;
}

describe("the import graph of host/ and abi/", () => {
  it("has no circles", () => {
    const graph = importGraph([...sources(join(repoRoot, "host")), ...sources(join(repoRoot, "abi"))]);
    expect(graph.size).toBeGreaterThan(100);
    const names = cycles(graph).map((c) => c.map((f) => relative(repoRoot, f)).join(" → "));
    expect(names).toEqual([]);
  });

  it("would report a circle (the checker is not blind)", () => {
    const a = resolve("/x/a.ts");
    const b = resolve("/x/b.ts");
    expect(cycles(new Map([[a, [b]], [b, [a]]]))).toHaveLength(1);
  });
});
