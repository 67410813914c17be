// Every host function checks the guest memory its arguments name before it prices the call:
// a pointer outside memory ends the call as GUEST_TRAP naming the pointer, never as fuel
// exhausted by a price worked out from a length nothing had checked.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../../host/sandbox/index.js";
import { KV_CALL_COST } from "../../host/sandbox/loader/fuel/cost-model.js";
import { fixture } from "../helpers/fixtures.js";
import { request } from "../helpers/requests.js";
import { componentFixture } from "../components/fixtures.js";

let sandbox: Sandbox;
beforeAll(() => { sandbox = createSandbox({ workers: 1 }); });
afterAll(() => sandbox.close());

const kvScope = { spaceId: "space-a", ownerId: "bounds" };
const loose = { timeoutMs: 5_000 };

describe("a host call whose pointer lies outside the guest's memory", () => {
  it("kv_set with a key pointer past the end and a 4 GiB length traps naming the pointer, having been charged nothing for the length", async () => {
    const mod = await sandbox.load(fixture("kv-set-key-out-of-bounds"), { capabilities: ["kv"], limits: loose });
    const r = await sandbox.invoke(mod, request(), { kvScope });
    expect(!r.ok && r.error.code).toBe("GUEST_TRAP");
    expect(!r.ok && r.error.message).toMatch(/kv_set: key out of bounds: pointer 4294967280 /);
    expect(r.fuel).toBeLessThan(KV_CALL_COST);
  });

  it("log with a message running past the end of memory traps naming the pointer instead of logging a placeholder", async () => {
    const r = await sandbox.invoke(await sandbox.load(fixture("log-out-of-bounds"), { limits: loose }), request());
    expect(!r.ok && r.error.code).toBe("GUEST_TRAP");
    expect(!r.ok && r.error.message).toMatch(/log: message out of bounds: pointer 65530 with length 100 lies outside the guest's 65536-byte memory/);
    expect(r.logs).toEqual([]);
  });

  it("a component's kv-set with a key past the end of its memory traps naming the pointer instead of storing a clamped key", async () => {
    const mod = await sandbox.load(await componentFixture("kv-set-out-of-bounds"), { capabilities: ["kv"], limits: loose });
    const r = await sandbox.invoke(mod, request(), { kvScope });
    expect(!r.ok && r.error.code).toBe("GUEST_TRAP");
    expect(!r.ok && r.error.message).toMatch(/kv-set: key out of bounds: pointer 70000 with length 8/);
    expect(r.fuel).toBeLessThan(KV_CALL_COST);
  });

  it("the worker that refused the pointer serves the next call", async () => {
    await sandbox.invoke(await sandbox.load(fixture("log-out-of-bounds"), { limits: loose }), request());
    const next = await sandbox.invoke(await sandbox.load(fixture("continue")), request());
    expect(next.ok && next.outcome.kind).toBe("continue");
  });
});
