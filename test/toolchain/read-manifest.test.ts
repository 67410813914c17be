// `sluice build` and `sluice test` read a plugin's hook.yaml with the registry's reader: the
// same bounds, validation, grants and limits as an upload.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { loadPlugin, readManifest } from "../../host/toolchain/samples.js";
import { Sandbox } from "../../host/sandbox/main/sandbox.js";

let dir: string | undefined;
afterEach(() => { if (dir) rmSync(dir, { recursive: true, force: true }); dir = undefined; });
const sandbox = new Sandbox();
afterAll(() => sandbox.close());

const plugin = (manifest: string): string => {
  dir = mkdtempSync(join(tmpdir(), "sluice-manifest-"));
  writeFileSync(join(dir, "hook.yaml"), manifest);
  return dir;
};
const AUDIT = readFileSync(new URL("../../plugins/audit-tag/hook.yaml", import.meta.url), "utf8");

describe("readManifest", () => {
  it("refuses a hook.yaml nested past the bound with MANIFEST_INVALID, naming the file and the limit", async () => {
    const d = plugin("- ".repeat(3_000) + "x");
    await expect(readManifest(d)).rejects.toMatchObject({ code: "MANIFEST_INVALID", message: expect.stringMatching(new RegExp(`${join(d, "hook.yaml")}: is nested too deeply \\(up to \\d+ levels; the limit is 256\\)`)) });
  });

  it("refuses what an upload refuses (a missing capability_boundary, a write outside the point), naming the file and the field", async () => {
    await expect(readManifest(plugin("id: x\nversion: 1.0.0\nabi: \"1.0\"\nentry: a.ts\npoints:\n  tool.before: {}\n"))).rejects.toMatchObject({ code: "MANIFEST_INVALID", message: expect.stringContaining("capability_boundary") });
    await expect(readManifest(plugin(AUDIT.replace("read: [/model, /dimension]", "read: [/model]\n    write: [/model]")))).rejects.toMatchObject({ code: "MANIFEST_INVALID", details: { field: "points.model.embedding.after.write" } });
  });

  it("reads a reference manifest with the registry's defaults filled in", async () => {
    const m = await readManifest(plugin(AUDIT));
    expect(m).toMatchObject({ id: "audit-tag", version: "1.0.0", failure_policy: "fail-open", capabilities: [], limits: { memory_mb: 16, timeout_ms: 200 } });
  });

  it("applies the manifest's module shape limits at load, as an upload does", async () => {
    const wasm = readFileSync(new URL("../../build/plugins/audit-tag.wasm", import.meta.url));
    const d = plugin(AUDIT.replace("limits: { memory_mb: 16,", "limits: { functions: 1, memory_mb: 16,"));
    await expect(loadPlugin(sandbox, d, wasm)).rejects.toMatchObject({ code: "MODULE_LIMIT_EXCEEDED", details: { limit: "functions" } });
  });
});
