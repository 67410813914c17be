/** Data at rest is readable by its owner only: files 0600, folders 0700. */
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Registry } from "../../host/registry/registry.js";
import { resolveOptions } from "../../host/sandbox/main/sandbox-options.js";
import { SqliteKvStore } from "../../host/sandbox/kv/sqlite-kv-store.js";
import { fixture, manifestYaml, tempDir } from "./fixtures.js";

const mode = (p: string) => statSync(p).mode & 0o777;

/** Every file and folder under `dir`, with its mode. */
function modes(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      out[path.relative(dir, p)] = mode(p);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

describe("private data files", () => {
  it("the library's default key-value file lives in a fresh 0700 folder and is created 0600", () => {
    const { kvPath } = resolveOptions({});
    expect(mode(path.dirname(kvPath))).toBe(0o700);
    const store = new SqliteKvStore(kvPath);
    try {
      store.set("s\u0000p", new Uint8Array([1]), new Uint8Array([2]));
      expect(mode(kvPath)).toBe(0o600);
      for (const extra of ["-wal", "-shm"]) if (existsSync(kvPath + extra)) expect(mode(kvPath + extra)).toBe(0o600);
    } finally {
      store.close();
    }
  });

  it("a registry's data folder holds only 0600 files and 0700 folders, even when the folder existed wider", async () => {
    const dataDir = tempDir();
    (await import("node:fs")).chmodSync(dataDir, 0o755);
    const registry = await Registry.open({ dataDir, hostOptions: { workers: 1 } });
    try {
      await registry.upload({ manifest: manifestYaml({ id: "counter", capabilities: ["kv"], config_schema: { type: "object" } }), wasm: fixture("kv-counter") });
      await registry.createBinding({ id: "count", hook_ref: "counter@1.0.0", point: "tool.before" });
      await registry.publish({ activate: true });
      await registry.host.tool({ spaceId: "s1" }, { toolId: "t", name: "t", schema: { type: "object" }, arguments: {}, callId: "c" }, async () => ({}));
    } finally {
      await registry.close();
    }
    expect(mode(dataDir)).toBe(0o700);
    const found = modes(dataDir);
    expect(Object.keys(found)).toEqual(expect.arrayContaining(["sluice.db", "kv.sqlite", "digest.key", "artifacts", path.join("artifacts", "sha256")]));
    for (const [p, m] of Object.entries(found)) {
      const isDir = statSync(path.join(dataDir, p)).isDirectory();
      expect({ p, m }).toEqual({ p, m: isDir ? 0o700 : 0o600 });
    }
  });
});
