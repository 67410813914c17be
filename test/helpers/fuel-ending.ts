import { expect } from "vitest";
import type { LoadedModule, Sandbox } from "../../host/sandbox/index.js";
import { request } from "./requests.js";

/**
 * Invokes `mod` once and expects the call to end by its fuel (GUEST_FUEL_EXHAUSTED naming
 * what it used and `limit`), with its worker kept and its plugin not restart-limited.
 * Returns the report, for what a test checks beyond that.
 */
export async function expectEndsByFuel(sandbox: Sandbox, mod: LoadedModule, limit: number) {
  const threads = sandbox.threadCount;
  const r = await sandbox.invoke(mod, request());
  expect(!r.ok && r.error.code).toBe("GUEST_FUEL_EXHAUSTED");
  expect(!r.ok && r.error.details).toEqual({ used: r.fuel, limit });
  expect(sandbox.threadCount).toBe(threads);
  expect(sandbox.restartLimited(mod)).toBe(false);
  return r;
}
