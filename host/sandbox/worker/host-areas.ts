import type { HostFunction } from "../loader/fuel/host-prices.js";
import { LOG_LIMITS } from "../limits.js";
import { withKeys } from "../../objects/with-keys.js";

/** One `(ptr, len)` pair a host function reads or writes, by argument position. */
interface Area { what: string; ptr: number; len: number; readAtMost?: number }

/**
 * The guest memory each host function touches (abi/README.md §3), by core argument position.
 * A log or abort message is read up to the line limit, whatever length the guest claims, so
 * only that much must lie in memory. The host bridge checks every area before it prices the
 * call: a price worked out from a length that was never checked could overdraw the budget
 * on a bogus number and hide the real fault, a pointer outside memory.
 */
export const HOST_AREAS: Readonly<Record<HostFunction, readonly Area[]>> = {
  log: [{ what: "message", ptr: 1, len: 2, readAtMost: LOG_LIMITS.lineBytes }],
  abort: [{ what: "message", ptr: 0, len: 1, readAtMost: LOG_LIMITS.lineBytes }],
  kv_get: [{ what: "key", ptr: 0, len: 1 }, { what: "output buffer", ptr: 2, len: 3 }],
  kv_set: [{ what: "key", ptr: 0, len: 1 }, { what: "value", ptr: 2, len: 3 }],
  kv_delete: [{ what: "key", ptr: 0, len: 1 }],
};

/** A host function's argument that lies outside the guest's memory: ends the call as GUEST_TRAP. */
export class AreaOutOfBounds extends WebAssembly.RuntimeError {
  constructor(readonly fn: string, readonly what: string, readonly ptr: number, readonly len: number, readonly memoryBytes: number) {
    super(`${fn}: ${what} out of bounds: pointer ${ptr} with length ${len} lies outside the guest's ${memoryBytes}-byte memory`);
  }
}

/** The first of `areas` that does not lie in a memory of `memoryBytes`, as the trap to raise; undefined when all do. */
export function areaFault(fn: string, areas: readonly Area[], args: readonly (number | undefined)[], memoryBytes: number): AreaOutOfBounds | undefined {
  for (const a of areas) {
    const ptr = (args[a.ptr] ?? 0) >>> 0;
    const len = Math.min((args[a.len] ?? 0) >>> 0, a.readAtMost ?? Infinity);
    if (ptr + len > memoryBytes) return new AreaOutOfBounds(fn, a.what, ptr, len, memoryBytes);
  }
  return undefined;
}

/**
 * A component's host imports take the same `(ptr, len)` positions as a core guest's, except
 * kv-get, whose value comes back through the canonical ABI's return area (written by jco's
 * glue), not an output buffer the guest names.
 */
export const COMPONENT_AREAS: Readonly<Record<HostFunction, readonly Area[]>> = withKeys(HOST_AREAS, { kv_get: HOST_AREAS.kv_get.slice(0, 1) });
