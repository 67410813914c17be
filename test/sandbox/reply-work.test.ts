/**
 * Decoding and checking a guest's reply is the host's work, never billed to the guest's
 * clock: a reply of 25,000 patch operations (under the 1 MiB output limit; the guest only
 * copies bytes) is refused PATCH_INVALID for the documented operation limit, and the worker
 * that ran it serves the next call (no replacement is booted). The time such a reply takes
 * is measured by the bench, not here.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, type Host } from "../../host/index.js";
import type { GuestPlugin } from "../../host/engine/hooks.js";
import { PATCH_MAX_OPS } from "../../abi/envelope.js";
import { fixture } from "../helpers/fixtures.js";

let host: Host;
let flood: GuestPlugin;
let big: GuestPlugin;
beforeAll(async () => {
  // One worker and a restart budget of one: a single replacement would refuse the module's next call.
  host = createHost({ workers: 1, spareWorkers: 0, restarts: { burst: 1, perSecond: 0.001 } });
  flood = await host.loadPlugin({ id: "flood", version: "1.0.0", wasm: fixture("patch-flood"), grants: { "tool.before": { write: ["/arguments"] } } });
  await host.loadPlugin({ id: "ok", version: "1.0.0", wasm: fixture("continue") });
  big = await host.loadPlugin({ id: "big", version: "1.0.0", wasm: fixture("big-reply"), limits: { outputBytes: 16 * 1024 * 1024 } });
  await host.sandbox.ready();
});
afterAll(() => host.close());

const schema = { type: "object", properties: { q: { type: "string" } } };
const call = () => host.tool({ spaceId: "s1" }, { toolId: "orders.search", name: "search", schema, arguments: { q: "shoes" }, callId: "c1" }, async (args) => args);

describe("a reply the host must decode and check", () => {
  it("refuses a patch of 25,000 operations PATCH_INVALID naming the limit, and the same worker serves the next calls", async () => {
    host.activate({ revision: 1, bindings: [{ id: "flood", hookRef: "flood@1.0.0", point: "tool.before" }] });
    const r = await call();
    expect(!r.ok && r.error.code).toBe("HOOK_FAILED");
    const cause = !r.ok ? (r.error.details as { cause?: { code: string; message: string; details?: unknown } }).cause : undefined;
    expect(cause).toMatchObject({ code: "PATCH_INVALID", details: { limit: PATCH_MAX_OPS, size: 25_000 } });
    expect(cause!.message).toContain(`at most ${PATCH_MAX_OPS} operations`);
    expect(host.sandbox.restartLimited(flood.module)).toBe(false);
    // Again, then another plugin: no worker was terminated, so the budget of one restart is untouched.
    expect(await call()).toMatchObject({ ok: false, error: { details: { cause: { code: "PATCH_INVALID" } } } });
    host.activate({ revision: 2, bindings: [{ id: "ok", hookRef: "ok@1.0.0", point: "tool.before" }] });
    expect((await call()).ok).toBe(true);
    expect(host.sandbox.restartLimited(flood.module)).toBe(false);
  });

  it("does not bill the decoding of an 8 MB reply to a guest that only returned it: it answers within the 100 ms limit and the worker serves on", async () => {
    // Scanning and decoding 8,000,000 values takes the host hundreds of milliseconds; the guest's own work is returning a pointer.
    host.activate({ revision: 3, bindings: [{ id: "big", hookRef: "big@1.0.0", point: "tool.before", timeoutMs: 30_000 }] });
    const r = await call();
    expect(r.ok ? r.facts.shortCircuitedBy : r.error).toBe("big");
    expect(r.ok && (r.output.view as unknown[]).length).toBe(8_000_000);
    expect(host.sandbox.restartLimited(big.module)).toBe(false);
    host.activate({ revision: 4, bindings: [{ id: "ok", hookRef: "ok@1.0.0", point: "tool.before" }] });
    expect((await call()).ok).toBe(true);
    expect(host.sandbox.restartLimited(big.module)).toBe(false);
  });
});
