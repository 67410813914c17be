/**
 * host/events has no import circle (STYLE.md, "Drift: circles"): the observer imports
 * the operation observation, which reports to it through an interface passed down.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/fixtures.js";

const dir = join(repoRoot, "host/events");
const files = readdirSync(dir).filter((f) => f.endsWith(".ts"));
const importsOf = (file: string) => [...readFileSync(join(dir, file), "utf8").matchAll(/^import[^;]*?from "\.\/([^"]+)\.js";/gms)].map((m) => `${m[1]}.ts`);

describe("host/events", () => {
  it("has no import circle, type-only imports included", () => {
    const graph = new Map(files.map((f) => [f, importsOf(f)]));
    expect(graph.get("observer.ts")).toContain("operation-observation.ts");
    const cycles: string[] = [];
    const visit = (file: string, path: string[]) => {
      if (path.includes(file)) { cycles.push([...path.slice(path.indexOf(file)), file].join(" -> ")); return; }
      for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
    };
    for (const f of files) visit(f, []);
    expect(cycles).toEqual([]);
  });
});
