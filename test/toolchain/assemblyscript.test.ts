import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compileAssemblyScript } from "../../host/toolchain/assemblyscript.js";

// Plugins live anywhere: compile from a folder with no node_modules and no link to the repo.
const dir = mkdtempSync(path.join(tmpdir(), "sluice-plugin-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function plugin(name: string, source: string): string {
  mkdirSync(path.join(dir, name));
  const entry = path.join(dir, name, "hook.ts");
  writeFileSync(entry, source);
  return entry;
}

const imports = (wasm: Uint8Array<ArrayBuffer>) => WebAssembly.Module.imports(new WebAssembly.Module(wasm)).map((i) => `${i.module}.${i.name}`).sort();
const exportsOf = (wasm: Uint8Array<ArrayBuffer>) => WebAssembly.Module.exports(new WebAssembly.Module(wasm)).map((e) => e.name).sort();

describe("compileAssemblyScript", () => {
  it("compiles a hook outside the repository that imports the SDK as @sluice/guest-sdk", async () => {
    const entry = plugin("cap", `
      import { registerHook, Outcome, Value } from "@sluice/guest-sdk";
      export * from "@sluice/guest-sdk/exports";
      registerHook((req) => {
        const max = req.config.get("max_limit").asInt();
        if (req.payload.get("arguments").get("limit").asInt() > max) return Outcome.patchInput().replace("/arguments/limit", Value.int(max));
        return Outcome.continue();
      });
    `);
    const wasm = await compileAssemblyScript({ entry });
    expect(exportsOf(wasm)).toStrictEqual(["memory", "sluice_abi_v1_0", "sluice_alloc", "sluice_handle"]);
    expect(imports(wasm).every((i) => i.startsWith("sluice_v1."))).toBe(true);
  });

  it("imports the kv host functions only when the hook uses the kv module", async () => {
    const withKv = await compileAssemblyScript({ entry: plugin("kv", `
      import { registerHook, Outcome } from "@sluice/guest-sdk";
      import { kv } from "@sluice/guest-sdk/kv";
      export * from "@sluice/guest-sdk/exports";
      registerHook((req) => { kv.setString("seen", req.point); kv.get("seen"); kv.delete("seen"); return Outcome.continue(); });
    `) });
    const without = await compileAssemblyScript({ entry: plugin("nokv", `
      import { registerHook, Outcome } from "@sluice/guest-sdk";
      export * from "@sluice/guest-sdk/exports";
      registerHook((req) => Outcome.continue());
    `) });
    expect(imports(withKv)).toStrictEqual(["sluice_v1.abort", "sluice_v1.kv_delete", "sluice_v1.kv_get", "sluice_v1.kv_set"]);
    expect(imports(without).some((i) => i.includes("kv_"))).toBe(false);
  });

  it("routes abort to sluice_v1.abort instead of env.abort", async () => {
    const wasm = await compileAssemblyScript({ entry: plugin("abort", `
      import { registerHook, Outcome } from "@sluice/guest-sdk";
      export * from "@sluice/guest-sdk/exports";
      registerHook((req) => { assert(req.point == "never", "not this point"); return Outcome.continue(); });
    `), optimize: "size" });
    expect(imports(wasm)).toContain("sluice_v1.abort");
    expect(imports(wasm).some((i) => i.startsWith("env."))).toBe(false);
  });

  it("throws an error carrying the compiler's diagnostics when the hook does not compile", async () => {
    const entry = plugin("broken", `
      import { registerHook } from "@sluice/guest-sdk";
      export * from "@sluice/guest-sdk/exports";
      registerHook((req) => 42);
    `);
    await expect(compileAssemblyScript({ entry })).rejects.toThrow(/hook\.ts[\s\S]*(TS2322|not assignable)/);
  });

  it("refuses a relative entry path with a message saying it must be absolute", async () => {
    await expect(compileAssemblyScript({ entry: "hook.ts" })).rejects.toThrow(/absolute/);
  });
});
