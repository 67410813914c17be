/** A dry run never meets a tenant's key-value data. */
import { afterEach, describe, expect, it } from "vitest";
import { Registry } from "../../host/registry/registry.js";
import { fixture, manifestYaml, tempDir, toolCall, toolPayload } from "./fixtures.js";

let registry: Registry | undefined;
afterEach(async () => { await registry?.close(); registry = undefined; });

describe("dry run key-value scope", () => {
  it("gets a fresh, empty, private scope every time, whatever space_id the sample names", async () => {
    registry = await Registry.open({ dataDir: tempDir(), hostOptions: { workers: 1 } });
    await registry.upload({ manifest: manifestYaml({ id: "counter", capabilities: ["kv"], config_schema: { type: "object" } }), wasm: fixture("kv-counter") });
    await registry.createBinding({ id: "count", hook_ref: "counter@1.0.0", point: "tool.before" });
    await registry.publish({ activate: true });
    const real = async () => (await registry!.host.tool({ spaceId: "acme" }, toolCall(5), async () => ({}))).hooks[0]?.annotations;

    expect(await real()).toEqual({ n: 1 });
    for (let i = 0; i < 2; i++) {
      const tried = await registry.test("counter", "1.0.0", { point: "tool.before", payload: toolPayload, context: { space_id: "acme" } });
      expect(tried).toMatchObject({ outcome: "continue", annotations: { n: 1 } });
    }
    // The dry runs neither read acme's counter nor wrote to it.
    expect(await real()).toEqual({ n: 2 });
  });
});
