import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

/** Each file's relative imports (static, type-only and re-exports included), as absolute .ts paths. */
export function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    const deps = [...text.matchAll(/^\s*(?:import|export)\s+(?:[^'";]*?\sfrom\s+)?["'](\.[^"']+)["']/gm), ...text.matchAll(/\bimport\(\s*["'](\.[^"']+)["']\s*\)/g)]
      .map((m) => resolve(dirname(file), m[1]!).replace(/\.js$/, ".ts").replace(/\.cjs$/, ".cts"));
    graph.set(file, deps);
  }
  return graph;
}
