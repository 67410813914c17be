// `sluice build` and `sluice test` read a plugin's hook.yaml with the same nesting bound as
// uploads: a deeply nested file is an error naming the file, not a process abort.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readManifest } from "../../host/toolchain/samples.js";

let dir: string | undefined;
afterEach(() => { if (dir) rmSync(dir, { recursive: true, force: true }); dir = undefined; });

describe("readManifest", () => {
  it("refuses a hook.yaml nested past the bound, naming the file and the limit", async () => {
    dir = mkdtempSync(join(tmpdir(), "sluice-manifest-"));
    writeFileSync(join(dir, "hook.yaml"), "- ".repeat(3_000) + "x");
    await expect(readManifest(dir)).rejects.toThrow(/hook\.yaml: nested too deeply \(up to \d+ levels; the limit is 256\)/);
  });

  it("still reads a plain manifest", async () => {
    dir = mkdtempSync(join(tmpdir(), "sluice-manifest-"));
    writeFileSync(join(dir, "hook.yaml"), "id: x\nversion: 1.0.0\nentry: assembly/index.ts\npoints:\n  tool.before: {}\n");
    await expect(readManifest(dir)).resolves.toMatchObject({ id: "x", version: "1.0.0", points: { "tool.before": {} } });
  });
});
