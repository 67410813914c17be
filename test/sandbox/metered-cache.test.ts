// Metering runs once per plugin version: in memory for every module, and on disk (a private
// folder, checksummed files) for large ones, so a restarted host does not meter them again.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { meterOnce, METERED_DIR } from "../../host/sandbox/loader/fuel/metered-cache.js";
import { manyFunctionsModule } from "../helpers/big-module.js";
import { fixture } from "../helpers/fixtures.js";

const sha = (b: Uint8Array): string => createHash("sha256").update(b).digest("hex");

describe("the metered-module cache", () => {
  it("meters a module once: the same bytes and variant give the same result object", async () => {
    const bytes = fixture("continue");
    const first = await meterOnce(bytes, sha(bytes), "test-a");
    expect(await meterOnce(bytes, sha(bytes), "test-a")).toBe(first);
    expect(WebAssembly.Module.imports(new WebAssembly.Module(first as Uint8Array<ArrayBuffer>)).map((i) => `${i.module}.${i.name}`)).toEqual(["sluice_fuel.remaining"]);
  });

  it("adds only the counter's import: nothing of the meter is exported, whatever names the guest uses", async () => {
    const names = (m: Uint8Array) => WebAssembly.Module.exports(new WebAssembly.Module(m as Uint8Array<ArrayBuffer>)).map((e) => `${e.kind}:${e.name}`);
    for (const name of ["fuel-name-clash", "fuel-table-fill", "fuel-grow-loop", "start-loop"]) {
      const bytes = fixture(name);
      const metered = await meterOnce(bytes, sha(bytes), "test-exports");
      expect({ name, exports: names(metered) }).toEqual({ name, exports: names(bytes) });
      const imports = (m: Uint8Array) => WebAssembly.Module.imports(new WebAssembly.Module(m as Uint8Array<ArrayBuffer>)).map((i) => `${i.kind}:${i.module}.${i.name}`);
      expect({ name, imports: imports(metered).sort() }).toEqual({ name, imports: [...imports(bytes), "global:sluice_fuel.remaining"].sort() });
    }
  });

  it("keeps a large module on disk in a 0700 folder, checksummed, and ignores a file that does not match its checksum", async () => {
    const bytes = manyFunctionsModule(40_000, 28);
    expect(bytes.byteLength).toBeGreaterThan(1 << 20);
    const variant = `test-disk-${process.pid}-${Date.now()}`;
    const { readdirSync } = await import("node:fs");
    // The folder is shared by every host of this user (earlier runs leave their files): only the file this load adds counts.
    const before = new Set(existsSync(METERED_DIR) ? readdirSync(METERED_DIR) : []);
    const metered = await meterOnce(bytes, sha(bytes), variant);
    expect(statSync(METERED_DIR).mode & 0o777).toBe(0o700);
    const files = readdirSync(METERED_DIR).filter((f) => !before.has(f)).map((f) => join(METERED_DIR, f));
    expect(files).toHaveLength(1);
    expect(Buffer.from(readFileSync(files[0]!).subarray(0, metered.byteLength)).equals(Buffer.from(metered))).toBe(true);
    const file = files[0]!;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(createHash("sha256").update(metered).digest().equals(readFileSync(file).subarray(metered.byteLength))).toBe(true);

    // A fresh process (a fresh module instance here) reads the file instead of metering again:
    // planted content with a valid checksum comes back as is...
    const fresh = async () => { vi.resetModules(); return (await import("../../host/sandbox/loader/fuel/metered-cache.js")).meterOnce; };
    const planted = fixture("continue");
    writeFileSync(file, Buffer.concat([planted, createHash("sha256").update(planted).digest()]));
    expect(Buffer.from(await (await fresh())(bytes, sha(bytes), variant)).equals(Buffer.from(planted))).toBe(true);
    // ...and a file that does not match its checksum is not trusted: the module is metered again and the file rewritten.
    const altered = readFileSync(file);
    altered[10] = altered[10]! ^ 0xff;
    writeFileSync(file, altered);
    expect(Buffer.from(await (await fresh())(bytes, sha(bytes), variant)).equals(Buffer.from(metered))).toBe(true);
    expect(existsSync(file) && readFileSync(file).subarray(0, metered.byteLength).equals(Buffer.from(metered))).toBe(true);
  });
});
