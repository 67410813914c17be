/**
 * Registry.deploy (POST /api/v1/deploy): upload, bind, publish and activate as one step,
 * every binding checked first, nothing stored when any step fails; hook.yaml's bindings
 * are not part of the locked version.
 */
import { readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isSluiceError } from "../../host/errors/sluice-error.js";
import { Registry } from "../../host/registry/registry.js";
import { fixture, manifestYaml, tempDir, toolCall } from "./fixtures.js";

const open: Registry[] = [];
afterEach(async () => { for (const r of open.splice(0)) await r.close(); });

async function registry(): Promise<{ r: Registry; dataDir: string }> {
  const dataDir = tempDir();
  const r = await Registry.open({ dataDir, hostOptions: { workers: 1 } });
  open.push(r);
  return { r, dataDir };
}

const artifacts = (dataDir: string): string[] => readdirSync(path.join(dataDir, "artifacts"), { recursive: true }).map(String).filter((f) => f.endsWith(".wasm"));

describe("Registry.deploy", () => {
  it("stores, binds, publishes and activates in one step", async () => {
    const { r } = await registry();
    const done = await r.deploy({ manifest: manifestYaml({ bindings: [{ point: "tool.before", config: { max_limit: 100 } }] }), wasm: fixture("continue") });
    expect(done).toMatchObject({ uploaded: true, bindings: [{ id: "clamp-tool-before", point: "tool.before", created: true }], created: true, activated: true, active_revision: 1 });
    expect(r.host.release.revision).toBe(1);
    await r.host.tool({ spaceId: "s" }, toolCall(), async () => ({}));
  });

  it("a binding the plugin refuses stores nothing: no version, no artifact, no binding, no release", async () => {
    const { r, dataDir } = await registry();
    const bad = manifestYaml({ bindings: [{ point: "tool.before", config: { max_limit: 100 } }, { id: "second", point: "tool.before", config: { max_limit: "many" } }] });
    const err = await r.deploy({ manifest: bad, wasm: fixture("continue") }).catch((e: unknown) => e);
    expect(isSluiceError(err) && err.code).toBe("PLUGIN_CONFIG_INVALID");
    expect((err as Error).message).toMatch(/^hook\.yaml: bindings\[1\] \(second\): config does not match/);
    expect(await r.listPlugins()).toEqual([]);
    expect(await r.listBindings()).toEqual([]);
    expect(await r.listReleases()).toEqual([]);
    expect(artifacts(dataDir)).toEqual([]);
  });

  it("a point the manifest does not declare is refused before anything is stored", async () => {
    const { r } = await registry();
    const err = await r.deploy({ manifest: manifestYaml({ bindings: [{ point: "model.chat.before", config: { max_limit: 1 } }] }), wasm: fixture("continue") }).catch((e: unknown) => e);
    expect(isSluiceError(err) && err.code).toBe("BINDING_INVALID");
    expect(await r.listPlugins()).toEqual([]);
  });

  it("a version conflict stores nothing and leaves the active release as it was", async () => {
    const { r } = await registry();
    await r.deploy({ manifest: manifestYaml({ bindings: [{ point: "tool.before", config: { max_limit: 100 } }] }), wasm: fixture("continue") });
    const err = await r.deploy({ manifest: manifestYaml({ bindings: [{ id: "other", point: "tool.before", config: { max_limit: 5 } }] }), wasm: fixture("outcomes") }).catch((e: unknown) => e);
    expect(isSluiceError(err) && err.code).toBe("VERSION_CONFLICT");
    expect((await r.listBindings()).map((b) => b.id)).toEqual(["clamp-tool-before"]);
    expect((await r.listReleases()).length).toBe(1);
    expect(await r.activeRevision()).toBe(1);
  });

  it("the stored manifest leaves the bindings out, so upload and deploy with other bindings are the same version", async () => {
    const { r } = await registry();
    await r.upload({ manifest: manifestYaml({ bindings: [{ point: "tool.before", config: { max_limit: 100 } }] }), wasm: fixture("continue") });
    expect("bindings" in (await r.getPlugin("clamp", "1.0.0")).manifest).toBe(false);
    const again = await r.deploy({ manifest: manifestYaml({ bindings: [{ point: "tool.before", config: { max_limit: 7 } }] }), wasm: fixture("continue") });
    expect(again.uploaded).toBe(false);
    expect(again.release.bindings.map((b) => b.config)).toEqual([{ max_limit: 7 }]);
  });
});
