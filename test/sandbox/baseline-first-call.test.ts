// The first call of a module V8 compiled in its baseline tier (a core module over 4 MiB, such
// as a JavaScript component's) runs in baseline code that V8 optimises only in the
// background: that call gets BASELINE_FIRST_CALL_STRETCH times its time limit, later calls
// the limit. An optimised module's calls never get more than their limit.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../../host/sandbox/index.js";
import type { LoadedModule } from "../../host/sandbox/loaded-module.js";
import { BASELINE_FIRST_CALL_STRETCH, clockLimit } from "../../host/sandbox/main/clock-limit.js";
import { fixture } from "../helpers/fixtures.js";
import { request } from "../helpers/requests.js";

const LIMIT_MS = 40;

let sandbox: Sandbox;
let loop: LoadedModule;
beforeAll(async () => {
  sandbox = createSandbox({ workers: 1 });
  // A runaway whose fuel outlasts its clock: every call ends GUEST_TIMEOUT, naming the limit it ran past.
  loop = await sandbox.load(fixture("loop"), { limits: { timeoutMs: LIMIT_MS, fuel: 1e15 } });
}, 60_000);
afterAll(() => sandbox.close());

const limitOfCall = async (mod: LoadedModule): Promise<unknown> => {
  const r = await sandbox.invoke(mod, request());
  expect(!r.ok && r.error.code).toBe("GUEST_TIMEOUT");
  return !r.ok && r.error.details?.limitMs;
};

describe("the clock of a guest call", () => {
  it("gives the first call of a baseline-tier module ten times its limit, and its later calls the limit", async () => {
    const baseline: LoadedModule = { ...loop, tier: "baseline" };
    expect(await limitOfCall(baseline)).toBe(LIMIT_MS * BASELINE_FIRST_CALL_STRETCH);
    expect(await limitOfCall(baseline)).toBe(LIMIT_MS);
  }, 30_000);

  it("never stretches an optimised module's calls", async () => {
    expect(loop.tier).toBe("optimised");
    expect(await limitOfCall(loop)).toBe(LIMIT_MS);
    expect(clockLimit(loop, LIMIT_MS)).toBe(LIMIT_MS);
  }, 30_000);
});
