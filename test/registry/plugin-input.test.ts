import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createHost } from "sluice";
import { pluginInput } from "sluice/registry";

const root = fileURLToPath(new URL("../..", import.meta.url));
const manifest = readFileSync(`${root}plugins/order-search-limit/hook.yaml`, "utf8");
const wasm = new Uint8Array(readFileSync(`${root}build/plugins/order-search-limit.wasm`));
const host = createHost({ workers: 1 });
afterAll(() => host.close());

describe("pluginInput (sluice/registry)", () => {
  it("derives id, version, grants, capabilities and limits from hook.yaml, as the registry does", () => {
    const input = pluginInput(manifest, wasm);
    expect(input).toMatchObject({
      id: "order-search-limit", version: "1.0.0", capabilities: [],
      grants: { "tool.before": { read: ["/tool_id", "/name", "/arguments"], write: ["/arguments"] } },
      limits: { memoryBytes: 16 * 1024 * 1024, timeoutMs: 200, inputBytes: 256 * 1024, outputBytes: 64 * 1024 },
    });
    expect(input.wasm).toBe(wasm);
  });

  it("loads into a host without a registry, and the hook runs under the manifest's grants", async () => {
    await host.loadPlugin(pluginInput(manifest, wasm));
    host.activate({ revision: 1, bindings: [{ id: "clamp", hookRef: "order-search-limit@1.0.0", point: "tool.before", config: { max_limit: 50 } }] });
    const schema = { type: "object", properties: { limit: { type: "integer" } } };
    const r = await host.tool({ spaceId: "s" }, { toolId: "orders.search", name: "search", schema, arguments: { limit: 500 }, callId: "c1" }, async (args) => args);
    expect(r.ok && r.output).toMatchObject({ view: { limit: 50 } });
  });

  it("refuses an invalid manifest with MANIFEST_INVALID, naming the problem", () => {
    expect(() => pluginInput("id: x\n", wasm)).toThrow(expect.objectContaining({ code: "MANIFEST_INVALID" }));
  });
});
