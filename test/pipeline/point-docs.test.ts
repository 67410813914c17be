import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { withPointDocs } from "../../host/pipeline/point-docs.js";
import { POINT_NAMES } from "../../host/pipeline/points.js";

describe("the ABI document's point reference (§12)", () => {
  const abi = readFileSync(new URL("../../abi/README.md", import.meta.url), "utf8");

  it("is exactly what the point table renders (run node scripts/docs-points.mjs after a build)", () => {
    expect(abi).toBe(withPointDocs(abi));
  });

  it("lists every point with its outcomes", () => {
    for (const name of POINT_NAMES) expect(abi).toContain(`### \`${name}\``);
    expect(abi).toContain("Outcomes: `continue`, `patch_input`, `reject`, `short_circuit`.");
  });
});

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
