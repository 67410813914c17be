/**
 * Isolation: what a guest receives is exactly its own tenant's granted data. The
 * kv-record-request fixture stores the request bytes it was given in its kv scope, so
 * these tests read what a guest really saw, not what the host meant to send.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decode, encode } from "../../abi/codec.js";
import type { RequestEnvelope } from "../../abi/envelope.js";
import { isSluiceError } from "../../host/errors/sluice-error.js";
import { createHost, type Host } from "../../host/index.js";
import type { BindingInput } from "../../host/pipeline/release.js";
import { SqliteKvStore } from "../../host/sandbox/kv/sqlite-kv-store.js";
import { fixture } from "../helpers/fixtures.js";

let host: Host;
let kv: SqliteKvStore;
let revision = 0;
beforeAll(async () => {
  host = createHost({ workers: 2, quarantine: false });
  await host.loadPlugin({ id: "recorder", version: "1.0.0", wasm: fixture("kv-record-request"), capabilities: ["kv"] });
  await host.loadPlugin({ id: "narrow", version: "1.0.0", wasm: fixture("kv-record-request"), capabilities: ["kv"], grants: { "tool.before": { read: ["/arguments/q"] } } });
  await host.loadPlugin({ id: "counter", version: "1.0.0", wasm: fixture("kv-counter"), capabilities: ["kv"] });
  await host.loadPlugin({ id: "contract", version: "1.0.0", wasm: fixture("contract-hook") });
  kv = new SqliteKvStore(host.sandbox.options.kvPath);
});
afterAll(async () => { kv.close(); await host.close(); });

const bind = (bindings: Omit<BindingInput, "point">[]) => host.activate({ revision: ++revision, bindings: bindings.map((b) => ({ point: "tool.before", ...b })) });
const schema = { type: "object" };
const call = (spaceId: string, args: Record<string, unknown>, execute: (a: Record<string, unknown>) => Promise<unknown> = async (a) => a) =>
  host.tool({ spaceId, actorId: "user-1" }, { toolId: "orders.search", name: "search", schema, arguments: args, callId: "call-1" }, execute);
/** The request bytes the plugin's last invocation in `space` received. */
const received = (space: string, pluginId: string): Uint8Array => {
  const bytes = kv.get(`${space}\u0000${pluginId}`, new TextEncoder().encode("req"));
  if (!bytes) throw new Error(`plugin ${pluginId} recorded nothing in ${space}`);
  return bytes;
};
const contains = (haystack: Uint8Array, needle: string): boolean => Buffer.from(haystack).includes(Buffer.from(needle, "utf8"));

describe("tenants sharing a plugin", () => {
  it("never see each other's payload or key-value data", async () => {
    bind([{ id: "rec", hookRef: "recorder@1.0.0" }, { id: "count", hookRef: "counter@1.0.0" }]);
    const counts: unknown[] = [];
    for (const [space, q] of [["tenant-a", "alpha-only"], ["tenant-b", "bravo-only"], ["tenant-a", "alpha-only"], ["tenant-a", "alpha-only"]] as const) {
      const r = await call(space, { q });
      counts.push(r.ok && r.annotations.n);
    }
    expect(counts).toEqual([1, 1, 2, 3]); // kv counters are per (space, plugin)
    const a = received("tenant-a", "recorder");
    const b = received("tenant-b", "recorder");
    expect(contains(a, "alpha-only") && !contains(a, "bravo-only") && !contains(a, "tenant-b")).toBe(true);
    expect(contains(b, "bravo-only") && !contains(b, "alpha-only") && !contains(b, "tenant-a")).toBe(true);
    expect((decode(b) as RequestEnvelope).context.space_id).toBe("tenant-b");
  });

  it("under concurrency, 400 interleaved calls of 4 tenants each get exactly their own answer", async () => {
    bind([{ id: "tag", hookRef: "contract@1.0.0", config: { mode: "append", tag: "+" } }]);
    const jobs = Array.from({ length: 400 }, (_, i) => ({ space: `tenant-${i % 4}`, nonce: `n${i}-${"é".repeat(i % 7)}` }));
    const results = await Promise.all(jobs.map((j) => call(j.space, { trace: `${j.space}:${j.nonce}` })));
    results.forEach((r, i) => expect(r.ok && r.facts.realResult).toEqual({ trace: `${jobs[i]!.space}:${jobs[i]!.nonce}+` }));
  });
});

describe("grants", () => {
  it("a guest receives only the payload fields its manifest granted", async () => {
    bind([{ id: "narrow", hookRef: "narrow@1.0.0" }]);
    await call("tenant-a", { q: "visible", api_key: "sk-hidden-123", nested: { token: "tok-hidden" } });
    const bytes = received("tenant-a", "narrow");
    expect((decode(bytes) as RequestEnvelope).payload).toEqual({ arguments: { q: "visible" } });
    for (const hidden of ["sk-hidden-123", "tok-hidden", "api_key", "orders.search"]) expect(contains(bytes, hidden), hidden).toBe(false);
  });
});

describe("the host's environment", () => {
  it("process.env values and the service's own credentials never appear in any hook's request", async () => {
    const envMarker = `env-marker-${Math.random().toString(36).slice(2)}`;
    const credential = `cred-marker-${Math.random().toString(36).slice(2)}`;
    process.env.SLUICE_TEST_SECRET = envMarker;
    const inProcess: Uint8Array[] = [];
    host.registerHook("recording-twin", (req) => { inProcess.push(encode(req)); return { kind: "continue" }; });
    host.activate({ revision: ++revision, bindings: [
      { id: "rec", hookRef: "recorder@1.0.0", point: "tool.before" },
      { id: "twin-before", hookRef: "recording-twin", point: "tool.before" },
      { id: "twin-after", hookRef: "recording-twin", point: "tool.after" },
    ] });
    try {
      // The service authenticates with a credential its closure holds; hooks see the call and its result only.
      const r = await call("tenant-a", { q: "x" }, async (args) => ({ rows: [args.q], authorized: credential.length > 0 }));
      expect(r.ok).toBe(true);
      const all = [received("tenant-a", "recorder"), ...inProcess];
      expect(inProcess).toHaveLength(2);
      for (const bytes of all) {
        expect(contains(bytes, envMarker)).toBe(false);
        expect(contains(bytes, credential)).toBe(false);
      }
    } finally {
      delete process.env.SLUICE_TEST_SECRET;
    }
  });

  it("a guest importing anything beyond the allow-list (env, WASI, process, globalThis) is refused before it runs", async () => {
    for (const [name, named] of [["import-env-eval", "env.eval"], ["import-wasi", "wasi_snapshot_preview1"], ["import-process", "node.process"]] as const) {
      const err = await host.loadPlugin({ id: name, version: "1.0.0", wasm: fixture(name) }).catch((e: unknown) => e);
      expect(isSluiceError(err, "MODULE_FORBIDDEN_IMPORT"), name).toBe(true);
      expect((err as Error).message).toContain(named);
    }
  });

  it("a guest asking the host module for an inherited property (sluice_v1.constructor) is refused before it runs", async () => {
    const err = await host.loadPlugin({ id: "import-prototype", version: "1.0.0", wasm: fixture("import-prototype") }).catch((e: unknown) => e);
    expect(isSluiceError(err)).toBe(true);
    expect((err as Error).message).toContain("sluice_v1.constructor");
  });

  // Inherited names (constructor, toString, ...) must not count as allow-listed functions.
  it("refuses that import with MODULE_FORBIDDEN_IMPORT, the code for imports outside the allow-list", async () => {
    const err = await host.loadPlugin({ id: "import-prototype", version: "1.0.0", wasm: fixture("import-prototype") }).catch((e: unknown) => e);
    expect(isSluiceError(err, "MODULE_FORBIDDEN_IMPORT")).toBe(true);
  });
});
