/** The README ships in the package: every relative link in it must name a file the package ships too. */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/fixtures.js";

describe("the package's README", () => {
  it("links only to files the packed package holds", () => {
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    const packed = JSON.parse(execFileSync(npm, ["pack", "--dry-run", "--ignore-scripts", "--json"], { cwd: repoRoot, encoding: "utf8" })) as { files: { path: string }[] }[];
    const files = new Set(packed[0]!.files.map((f) => f.path));
    const links = [...readFileSync(`${repoRoot}/README.md`, "utf8").matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/.test(l));
    expect(links.length).toBeGreaterThan(5);
    const dead = links.filter((l) => !files.has(l) && ![...files].some((f) => f.startsWith(`${l.replace(/\/$/, "")}/`)));
    expect(dead).toEqual([]);
  });
});
