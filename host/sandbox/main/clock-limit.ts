/**
 * The wall-clock limit of one guest call. A module V8 compiled in its baseline tier
 * (`tier: "baseline"`: a core module over 4 MiB, such as a JavaScript component's
 * SpiderMonkey, loader/optimised-compile.ts) runs its first call in baseline code, which
 * V8 only optimises in the background while it runs, and a call never leaves the code it
 * started in: that first call's slowness is the engine's, not the guest's. So the first
 * call of such a module in this process gets BASELINE_FIRST_CALL_STRETCH times its limit;
 * its fuel bounds what the guest may do as on every call, and later calls get the limit.
 */
import type { LoadedModule } from "../loaded-module.js";

export const BASELINE_FIRST_CALL_STRETCH = 10;

const firstCallGiven = new WeakSet<LoadedModule>();

/** `timeoutMs` within the module's own limit; the first call of a baseline module stretched. */
export function clockLimit(module: LoadedModule, timeoutMs: number): number {
  const limit = Math.min(timeoutMs, module.limits.timeoutMs);
  if (module.tier !== "baseline" || firstCallGiven.has(module)) return limit;
  firstCallGiven.add(module);
  return limit * BASELINE_FIRST_CALL_STRETCH;
}
