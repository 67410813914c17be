import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runDemo } from "../../host/demo/run-demo.js";
import { repoRoot } from "../helpers/fixtures.js";

/**
 * The lines README.md's "Set up" section shows of `npm start`, each as a pattern: a hook's
 * time (and so its padding) may differ, and a line ending in " ..." stands for every line that starts with it.
 */
function readmeExcerpt(): RegExp[] {
  const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Set up: what `npm start` shows"));
  const block = /```\n([\s\S]*?)```/.exec(section)![1]!;
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return block.trimEnd().split("\n").map((line) => {
    const prefix = line.endsWith(" ...");
    const text = escape(prefix ? line.slice(0, -4) : line).replace(/ +\d+\\\.\d+ ms/g, " +\\d+\\.\\d+ ms");
    return new RegExp(`^${text}${prefix ? "" : "$"}`);
  });
}

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
    // What README.md shows of this output is printed, in that order.
    let at = 0;
    for (const pattern of readmeExcerpt()) {
      const found = lines.findIndex((line, i) => i >= at && pattern.test(line));
      expect(found, `README.md's line ${pattern} is not printed (after line ${at})`).toBeGreaterThanOrEqual(0);
      at = found + 1;
    }
  });
});
