import { describe, expect, it } from "vitest";
import { isSluiceError } from "../../host/errors/sluice-error.js";
import { manifestGrants, manifestLimits, parseManifest, MANIFEST_MAX_BYTES } from "../../host/registry/manifest.js";
import { manifestYaml } from "./fixtures.js";

function refused(text: string): string {
  try {
    parseManifest(text);
  } catch (err) {
    if (isSluiceError(err)) return `${err.code}: ${err.message}`;
    throw err;
  }
  throw new Error("the manifest was accepted");
}

describe("parseManifest", () => {
  it("reports an unclosed quote at the line and column where it opens, not at the end of the file", () => {
    const text = manifestYaml().replace("version: 1.0.0", 'version: "1.0.0');
    const line = text.split("\n").findIndex((l) => l.startsWith("version:")) + 1;
    let err: unknown;
    try { parseManifest(text); } catch (e) { err = e; }
    expect(isSluiceError(err) && err.code).toBe("MANIFEST_INVALID");
    expect((err as Error).message).toContain(`hook.yaml: is not valid YAML: a quoted value opened at line ${line}, column 10 is never closed`);
    expect((err as { details: unknown }).details).toMatchObject({ line, column: 10 });
  });

  it("reports other YAML errors with their line and column", () => {
    let err: unknown;
    try { parseManifest("id: a\nid: b\n"); } catch (e) { err = e; }
    expect((err as Error).message).toMatch(/is not valid YAML: .* at line 2, column 1/);
  });

  it("accepts the documented format and fills defaults", () => {
    const m = parseManifest(manifestYaml({ failure_policy: undefined, capabilities: undefined }));
    expect(m).toMatchObject({ id: "clamp", version: "1.0.0", abi: "1.0", failure_policy: "fail-closed", capabilities: [] });
    expect(manifestGrants(m)).toEqual({ "tool.before": { read: ["/tool_id", "/name", "/arguments"], write: ["/arguments"] } });
    expect(manifestLimits(m)).toEqual({ memoryBytes: 16 * 1024 * 1024, timeoutMs: 50, inputBytes: 256 * 1024, outputBytes: 64 * 1024 });
  });

  it("reads limits.fuel as the plugin's fuel budget, and refuses one that is not a positive integer", () => {
    const m = parseManifest(manifestYaml({ limits: { fuel: 2_000_000 } }));
    expect(manifestLimits(m)).toEqual({ fuel: 2_000_000 });
    expect(refused(manifestYaml({ limits: { fuel: 0 } }))).toMatch(/^MANIFEST_INVALID: .*\/limits\/fuel/);
    expect(refused(manifestYaml({ limits: { fuel: 1.5 } }))).toMatch(/^MANIFEST_INVALID: .*\/limits\/fuel/);
  });

  it("accepts the reference plugin's hook.yaml", async () => {
    const { readFile } = await import("node:fs/promises");
    const text = await readFile(new URL("../../plugins/order-search-limit/hook.yaml", import.meta.url), "utf8");
    expect(parseManifest(text).id).toBe("order-search-limit");
  });

  it("gives a point without read or write no write grant (least privilege)", () => {
    const m = parseManifest(manifestYaml({ points: { "tool.before": null } }));
    expect(manifestGrants(m)).toEqual({ "tool.before": { write: [] } });
  });

  it("reads stream_rewrite: chunk at model.chat.after as the plugin's stream-rewrite declaration (pii-redact declares it)", async () => {
    const { readFile } = await import("node:fs/promises");
    const pii = parseManifest(await readFile(new URL("../../plugins/pii-redact/hook.yaml", import.meta.url), "utf8"));
    expect(pii.points["model.chat.after"]).toEqual({ read: ["/content"], write: ["/content"], stream_rewrite: "chunk" });
    expect(manifestGrants(pii)["model.chat.after"]).toEqual({ read: ["/content"], write: ["/content"], streamRewrite: "chunk" });
    expect(manifestGrants(pii)["model.chat.chunk"]).not.toHaveProperty("streamRewrite");
  });

  it.each([
    ["stream_rewrite at a point other than model.chat.after", { points: { "tool.before": { stream_rewrite: "chunk" } } }, /MANIFEST_INVALID: hook.yaml: unknown property "stream_rewrite" at \/points\/tool.before \(allowed: read, write\)/],
    ["stream_rewrite without a model.chat.chunk hook", { points: { "model.chat.after": { write: ["/content"], stream_rewrite: "chunk" } } }, /MANIFEST_INVALID: hook.yaml: points.model.chat.after.stream_rewrite: chunk needs a model.chat.chunk hook/],
    ["a stream_rewrite other than chunk", { points: { "model.chat.chunk": null, "model.chat.after": { stream_rewrite: "after" } } }, /MANIFEST_INVALID.*stream_rewrite/],
  ])("refuses %s", (_name, overrides, message) => {
    expect(refused(manifestYaml(overrides))).toMatch(message);
  });

  it.each([
    ["an id with path characters", { id: "../etc" }, /MANIFEST_INVALID.*\/id/],
    ["a version that is not semver", { version: "1.0" }, /MANIFEST_INVALID.*\/version/],
    ["an unknown point", { points: { "tool.sideways": {} } }, /MANIFEST_INVALID/],
    ["no points", { points: {} }, /MANIFEST_INVALID/],
    ["a write outside what the point allows", { points: { "tool.before": { write: ["/tool_id"] } } }, /MANIFEST_INVALID.*outside what tool.before lets a hook change/],
    ["an unknown capability", { capabilities: ["net"] }, /MANIFEST_INVALID/],
    ["an unknown field", { network: true }, /MANIFEST_INVALID/],
    ["no capability boundary", { capability_boundary: undefined }, /MANIFEST_INVALID.*capability_boundary/],
    ["an abi this host does not serve", { abi: "2.0" }, /MANIFEST_INVALID.*abi 2.0/],
    ["a config schema that does not compile", { config_schema: { type: "object", properties: { a: { type: "nonsense" } } } }, /MANIFEST_INVALID.*config_schema/],
    ["an entry outside the plugin folder", { entry: "../../etc/passwd.ts" }, /MANIFEST_INVALID.*\/entry/],
    ["a negative limit", { limits: { memory_mb: -1 } }, /MANIFEST_INVALID.*limits/],
  ])("refuses %s", (_name, overrides, message) => {
    expect(refused(manifestYaml(overrides))).toMatch(message);
  });

  it("refuses YAML aliases, so alias bombs never expand", () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]",
      "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]",
      "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]",
      "e: [*d,*d,*d,*d,*d,*d,*d,*d,*d]",
    ].join("\n");
    expect(refused(bomb)).toMatch(/MANIFEST_INVALID.*aliases/);
    expect(refused(`${manifestYaml()}\nx: &id 1\n`)).toMatch(/MANIFEST_INVALID/);
  });

  it("refuses a manifest over the size limit before parsing it", () => {
    expect(refused(`${manifestYaml()}description: "${"x".repeat(MANIFEST_MAX_BYTES)}"\n`)).toMatch(/MANIFEST_INVALID.*limit is 65536/);
  });

  it("refuses text that is not YAML, or duplicate keys", () => {
    expect(refused("id: [unclosed")).toMatch(/MANIFEST_INVALID/);
    expect(refused("id: a\nid: b\n")).toMatch(/MANIFEST_INVALID/);
    expect(refused("- just\n- a list\n")).toMatch(/MANIFEST_INVALID/);
  });
});
