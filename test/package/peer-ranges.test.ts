// npm is not left to guess which framework version an adapter runs with: every optional
// peer's range starts at the version the adapter tests install (devDependencies), and the
// page that says which Node runs what shows those same ranges in its install commands.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../helpers/fixtures.js";

const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { devDependencies: Record<string, string>; peerDependencies: Record<string, string> };
const FRAMEWORKS = ["ai", "@ai-sdk/provider", "langchain", "@langchain/core", "@openai/agents", "@modelcontextprotocol/sdk"];
const page = readFileSync(join(repoRoot, "docs", "node-versions.md"), "utf8");

describe("the adapters' framework peers", () => {
  for (const name of FRAMEWORKS) {
    it(`${name}: the peer range starts at the tested version, and docs/node-versions.md installs that range`, () => {
      const tested = pkg.devDependencies[name]!;
      const range = pkg.peerDependencies[name]!;
      expect(range).toMatch(/^[~^]/);
      expect(range.slice(1)).toBe(tested);
      expect(page).toContain(`${name}@${range}`);
    });
  }
});
