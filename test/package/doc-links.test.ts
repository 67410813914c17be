/** Every relative link in README.md and docs/*.md names a file or folder of the repository, and every bench run they or RESULTS.md cite is kept. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/fixtures.js";

const pages = ["README.md", ...readdirSync(path.join(repoRoot, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];

/** Each relative link target of a markdown page (fragment and query removed), outside code blocks and spans. */
function relativeLinks(page: string): string[] {
  const text = readFileSync(path.join(repoRoot, page), "utf8").replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!.replace(/[#?].*$/, "")).filter((l) => l !== "" && !/^[a-z][a-z0-9+.-]*:/i.test(l));
}

describe("the repository's documentation links", () => {
  it.each(pages)("%s links only to files that exist", (page) => {
    const missing = relativeLinks(page)
      .map((link) => path.relative(repoRoot, path.resolve(repoRoot, path.dirname(page), decodeURIComponent(link))))
      .filter((file) => !existsSync(path.join(repoRoot, file)));
    expect(missing, `${page} links to files the repository does not have`).toEqual([]);
  });

  it("keeps every benchmark run the README, docs and RESULTS.md cite (results/*.json)", () => {
    const citing = [...pages, "test/bench/RESULTS.md"];
    const cited = new Set(citing.flatMap((page) => [...readFileSync(path.join(repoRoot, page), "utf8").matchAll(/results\/([\w.-]+\.json)/g)].map((m) => m[1]!)));
    expect(cited.size).toBeGreaterThan(10);
    // latest.json is where each run writes, not a run kept.
    const lost = [...cited].filter((f) => f !== "latest.json" && !existsSync(path.join(repoRoot, "test/bench/results", f)));
    expect(lost, "cited runs missing from test/bench/results (git add -f them: *.json there is ignored)").toEqual([]);
  });
});
