import { describe, expect, it } from "vitest";
import { startApiServer } from "../../host/api/server.js";
import { Registry } from "../../host/registry/registry.js";
import { fixture } from "../helpers/fixtures.js";
import { manifestYaml, tempDir, toolCall } from "../registry/fixtures.js";

const TOKEN = "quarantine-token-0123-abcdefghijklmnop";

describe("quarantine through the management API", () => {
  it("lists a plugin quarantined after repeated traps, and an operator lifts it", async () => {
    const registry = await Registry.open({ dataDir: tempDir(), hostOptions: { workers: 1, quarantine: { threshold: 2 } } });
    const server = await startApiServer({ registry, token: TOKEN, port: 0 });
    const api = async (method: string, path: string) => {
      const res = await fetch(new URL(path, server.url), { method, headers: { authorization: `Bearer ${TOKEN}` } });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    };
    try {
      await registry.upload({ manifest: manifestYaml({ id: "trapper", failure_policy: "fail-open" }), wasm: fixture("unreachable") });
      await registry.createBinding({ id: "trap", hook_ref: "trapper@1.0.0", point: "tool.before", failure_policy: "fail-open", config: { max_limit: 1 } });
      await registry.publish({ activate: true });
      for (let i = 0; i < 3; i++) await registry.host.tool({ spaceId: "s" }, toolCall(), async () => "ok");

      const listed = await api("GET", "/api/v1/quarantine");
      expect(listed.status).toBe(200);
      expect(listed.body.items).toEqual([expect.objectContaining({ ref: "trapper@1.0.0", lastError: expect.objectContaining({ code: "GUEST_TRAP" }) })]);
      const skipped = await registry.host.tool({ spaceId: "s" }, toolCall(), async () => "ok");
      expect(skipped.hooks[0]?.error?.code).toBe("PLUGIN_QUARANTINED");

      expect((await api("DELETE", "/api/v1/quarantine/trapper%401.0.0")).status).toBe(204);
      expect((await api("GET", "/api/v1/quarantine")).body.items).toEqual([]);
      expect((await api("DELETE", "/api/v1/quarantine/trapper%401.0.0")).body.error.code).toBe("PLUGIN_NOT_FOUND");
      expect((await fetch(new URL("/api/v1/quarantine", server.url))).status).toBe(401);
    } finally {
      await server.close();
      await registry.close();
    }
  });
});
