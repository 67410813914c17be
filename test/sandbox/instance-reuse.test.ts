// A worker may reuse a guest's instance (instance-pool.ts), but only ever hands the guest the
// state a fresh instance would have: data segments, globals, start function, memory size.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encode } from "../../abi/codec.js";
import { createSandbox, type Sandbox } from "../../host/sandbox/index.js";
import { prepareModule } from "../../host/sandbox/loader/prepare-module.js";
import { sha256Hex } from "../../host/sandbox/loaded-module.js";
import { keyOf, takeInstance } from "../../host/sandbox/worker/instance-pool.js";
import { runCall } from "../../host/sandbox/worker/run-call.js";
import { CONTINUE_GUEST, CONTINUE_GUEST_REUSABLE, CONTINUE_GUEST_REUSE } from "../../host/sandbox/benign-guest.js";
import { moduleShape } from "../../host/sandbox/loader/wasm-shape.js";
import type { CallSpec } from "../../host/sandbox/protocol.js";
import { fixture } from "../helpers/fixtures.js";
import { request } from "../helpers/requests.js";
import { benignCallSucceeds } from "../helpers/benign-call.js";

/** What reuse-state.wat reports on a fresh instance of one page. */
const FRESH = { a: 65, b: 7, c: 5, d: 1, e: 0, f: 1, g: 90 };

let sandbox: Sandbox;
// One worker, so every call of a module runs where the previous one left its instance.
beforeAll(async () => { sandbox = createSandbox({ workers: 1 }); await sandbox.ready(); });
afterAll(() => sandbox.close());

/** Runs a fixture in this thread, as a worker does, with a request of our choosing. */
async function inProcess(name: string) {
  const bytes = fixture(name);
  const loaded = await prepareModule(bytes, sha256Hex(bytes));
  const spec: CallSpec = {
    module: loaded.module, moduleId: `reuse-test:${name}`, memoryBytes: loaded.limits.memoryBytes,
    memoryPages: { initial: loaded.memory.initialPages, maximum: loaded.memory.maxPages },
    inputBytes: loaded.limits.inputBytes, outputBytes: loaded.limits.outputBytes, fuel: loaded.limits.fuel,
    abiMajor: 1, kvScope: null, ...(loaded.reuse ? { reuse: loaded.reuse } : {}),
  };
  const call = (req: Uint8Array) => runCall(spec, { bytes: req, raw: false }, () => { throw new Error("no kv"); });
  const kept = () => takeInstance(keyOf(spec.moduleId, loaded.memory.initialPages, false), loaded.module) !== undefined;
  return { loaded, call, kept };
}

describe("reused instances", () => {
  it("a module whose state the host can restore gets the reset export, and a used instance is kept", async () => {
    const { loaded, call, kept } = await inProcess("reuse-state");
    expect(loaded.reuse).toEqual({ reset: "sluice_reset", imageBytes: 40_001 });
    const r = call(encode(request()));
    expect(r.ok && r.outcome.annotations).toEqual(FRESH);
    expect(kept()).toBe(true);
  });

  it("every call sees a fresh instance's data, globals, start-function effects and memory size, with one fuel figure", async () => {
    const { call } = await inProcess("reuse-state");
    const fuel = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const r = call(encode(request()));
      expect(r.ok && r.outcome.annotations).toEqual(FRESH);
      fuel.add(r.fuel);
    }
    expect(fuel.size).toBe(1);
  });

  it("a call that changes everything and traps leaves nothing for the next call", async () => {
    const { call, kept } = await inProcess("reuse-state");
    expect(call(encode(request())).ok).toBe(true);
    const trapped = call(Uint8Array.of(0xff));
    expect(!trapped.ok && trapped.error.code).toBe("GUEST_TRAP");
    expect(kept()).toBe(false);
    const r = call(encode(request()));
    expect(r.ok && r.outcome.annotations).toEqual(FRESH);
  });

  it("the same holds through a worker, call after call", async () => {
    const mod = await sandbox.load(fixture("reuse-state"));
    for (let i = 0; i < 10; i++) {
      const r = await sandbox.invoke(mod, request());
      expect(r.ok && r.outcome.annotations).toEqual(FRESH);
    }
    // A larger request gets more memory from the start (abi/README.md §8), and still fresh state.
    const big = request("tool.before", { blob: "x".repeat(100_000) });
    const pages = 1 + Math.floor((4 * encode(big).byteLength) / 65_536);
    expect(pages).toBe(7);
    for (let i = 0; i < 3; i++) {
      const r = await sandbox.invoke(mod, big);
      expect(r.ok && r.outcome.annotations).toEqual({ ...FRESH, f: pages });
      const small = await sandbox.invoke(mod, request());
      expect(small.ok && small.outcome.annotations).toEqual(FRESH);
    }
  });

  it("a guest export named like the reset is never called by the host: the reset gets a fresh name", async () => {
    const { loaded, call } = await inProcess("reuse-name-clash");
    expect(loaded.reuse?.reset).toBe("sluice_reset_1");
    for (let i = 0; i < 5; i++) {
      const r = call(encode(request()));
      expect(r.ok && r.outcome.annotations).toEqual({ calls: 1 });
    }
  });

  it("a memory that grew is not reused: the next call gets the size a fresh instance gets", async () => {
    const mod = await sandbox.load(fixture("reuse-grow"));
    for (let i = 0; i < 5; i++) {
      const r = await sandbox.invoke(mod, request());
      expect(r.ok && r.outcome.annotations).toEqual({ pages: 1 });
    }
  });

  it("a module that writes its table gets a fresh instance for every call", async () => {
    const { loaded, call } = await inProcess("reuse-table-write");
    expect(loaded.reuse).toBeUndefined();
    for (let i = 0; i < 3; i++) {
      const r = call(encode(request()));
      expect(r.ok && r.outcome.annotations).toEqual({ seen: 0 });
    }
    const mod = await sandbox.load(fixture("reuse-table-write"));
    for (let i = 0; i < 3; i++) {
      const r = await sandbox.invoke(mod, request());
      expect(r.ok && r.outcome.annotations).toEqual({ seen: 0 });
    }
  });

  it("a module whose data segments reach past 1 MiB gets a fresh instance for every call", async () => {
    const { loaded, call } = await inProcess("reuse-far-data");
    expect(loaded.reuse).toBeUndefined();
    expect(call(encode(request())).ok).toBe(true);
  });

  it("a module that drops a data segment gets a fresh instance for every call", async () => {
    const { loaded } = await inProcess("reuse-data-drop");
    expect(loaded.reuse).toBeUndefined();
    const mod = await sandbox.load(fixture("reuse-data-drop"));
    for (let i = 0; i < 3; i++) {
      const r = await sandbox.invoke(mod, request());
      expect(r.ok && r.outcome.annotations).toEqual({});
    }
    await benignCallSucceeds(sandbox);
  });
});

describe("the worker's warm-up guests", () => {
  it("are the fixtures their comments name, and the reusable one's reset and data end are right", () => {
    const built = (name: string) => readFileSync(new URL(`../../build/fixtures/${name}.wasm`, import.meta.url)).toString("base64");
    expect(CONTINUE_GUEST).toBe(built("continue"));
    expect(CONTINUE_GUEST_REUSABLE).toBe(built("continue-reusable"));
    const shape = moduleShape(Buffer.from(CONTINUE_GUEST_REUSABLE, "base64"));
    expect(shape.dataEnd).toBe(CONTINUE_GUEST_REUSE.imageBytes);
    expect(shape.exports.some((e) => e.name === CONTINUE_GUEST_REUSE.reset && e.kind === "function")).toBe(true);
  });
});
