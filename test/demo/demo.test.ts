import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runDemo } from "../../host/demo/run-demo.js";

describe("the demo agent (the main job)", () => {
  it("runs to completion and shows the reject, the patch, the short-circuit and the redaction", async () => {
    const lines: string[] = [];
    const summary = await runDemo({ print: (l) => lines.push(l), dataDir: join(mkdtempSync(join(tmpdir(), "sluice-demo-")), "data") });
    expect(summary.rejectedPrompt).toBe("prompt.injection");
    expect(summary.clampedLimit).toBe(50);
    expect(summary.cacheHit).toBe(true);
    expect(summary.answer).not.toMatch(/alice@example\.com/);
    expect(summary.answer).toBe(summary.answer?.trim());
    expect(summary.streamed).not.toMatch(/bob\.smith|4111|555/);
    expect(summary.streamed).toContain("[email]");
    expect(summary.pathRejected).toBe("path.outside_workspace");
    expect(summary.normalizedTexts).toEqual(["Hello world", "FULL width"]);
    const trace = lines.join("\n");
    for (const decision of ["patch_input", "short_circuit", "reject", "redact"]) expect(trace).toContain(decision);
    expect(trace).toMatch(/Management API: http:\/\/127\.0\.0\.1:\d+\/api\/v1/);
    // The console of the same server.
    expect(trace).toMatch(/Operator console: http:\/\/127\.0\.0\.1:\d+\/console\//);
  });
});
