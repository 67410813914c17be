import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { withPointDocs } from "../../host/pipeline/point-docs.js";
import { POINT_NAMES } from "../../host/pipeline/points.js";

describe("the guest SDK guide's point reference", () => {
  const guide = readFileSync(new URL("../../guest-sdk/README.md", import.meta.url), "utf8");

  it("is exactly what the point table renders (run node scripts/docs-points.mjs after a build)", () => {
    expect(guide).toBe(withPointDocs(guide));
  });

  it("lists every point and every payload field", () => {
    for (const name of POINT_NAMES) expect(guide).toContain(`### \`${name}\``);
    expect(guide).toMatch(/\| `arguments` \| object \| yes \| patchable/);
    expect(guide).toMatch(/\| `tool_calls` \| .* \| read-only: change a tool's arguments at tool.before/);
  });
});
