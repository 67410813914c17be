// A library never changes what it is given: loading a plugin sends the module's bytes to
// the loader thread in transferred slices, and those slices must be copies, never views of
// the caller's memory (a Node Buffer's `slice` is a view; a small Buffer lives in a pool
// shared with unrelated Buffers of the process).
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../host/host.js";
import { fixture, pluginWasm } from "../helpers/fixtures.js";

const hosts: Host[] = [];
const host = (): Host => { const h = createHost({ workers: 1 }); hosts.push(h); return h; };
afterAll(() => Promise.all(hosts.map((h) => h.close())));

const original = (): Uint8Array => fixture("continue");

describe("loadPlugin leaves the caller's bytes alone", () => {
  it("keeps a Buffer from readFileSync intact, so it loads again as another version and in another host", async () => {
    // Past Node's 4 KiB pool: readFileSync gives the Buffer an ArrayBuffer of its own.
    const wasm = readFileSync(new URL("../../build/plugins/audit-tag.wasm", import.meta.url));
    const bytes = pluginWasm("audit-tag");
    expect(wasm.byteLength).toBeGreaterThan(4096);
    const a = host();
    const first = await a.loadPlugin({ id: "audit-tag", version: "1.0.0", wasm });
    expect(new Uint8Array(wasm)).toEqual(bytes);
    await a.loadPlugin({ id: "audit-tag", version: "1.0.1", wasm });
    const again = await host().loadPlugin({ id: "audit-tag", version: "1.0.0", wasm });
    expect(again.module.sha256).toBe(first.module.sha256);
    expect(new Uint8Array(wasm)).toEqual(bytes);
  });

  it("leaves unrelated Buffers of Node's shared pool untouched when a small pooled Buffer is loaded", async () => {
    const beforeIt = Buffer.from("unrelated, allocated before");
    const wasm = Buffer.from(original());
    const afterIt = Buffer.from("unrelated, allocated after");
    // The case this guards: the module and its neighbours share one pooled ArrayBuffer (Node
    // marks its pool untransferable, so this holds on Node 20 even before the copy).
    expect(wasm.buffer).toBe(beforeIt.buffer);
    expect(wasm.buffer).toBe(afterIt.buffer);
    await host().loadPlugin({ id: "pooled", version: "1.0.0", wasm });
    expect(beforeIt.toString()).toBe("unrelated, allocated before");
    expect(afterIt.toString()).toBe("unrelated, allocated after");
    expect(new Uint8Array(wasm)).toEqual(original());
  });

  it("loads a Uint8Array view at an offset of a larger buffer and leaves the whole buffer as it was", async () => {
    const bytes = original();
    const backing = new ArrayBuffer(bytes.byteLength + 64);
    new Uint8Array(backing).fill(7);
    const wasm = new Uint8Array(backing, 32, bytes.byteLength);
    wasm.set(bytes);
    const snapshot = new Uint8Array(backing).slice();
    await host().loadPlugin({ id: "view", version: "1.0.0", wasm });
    expect(backing.byteLength).toBe(bytes.byteLength + 64);
    expect(new Uint8Array(backing)).toEqual(snapshot);
  });

  it("loads an ArrayBuffer and leaves it attached and unchanged", async () => {
    const wasm = original().slice().buffer;
    const snapshot = new Uint8Array(wasm).slice();
    await host().loadPlugin({ id: "array-buffer", version: "1.0.0", wasm });
    expect(wasm.byteLength).toBe(snapshot.byteLength);
    expect(new Uint8Array(wasm)).toEqual(snapshot);
  });
});
