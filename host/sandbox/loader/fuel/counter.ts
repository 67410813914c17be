/**
 * Where a metered guest finds its fuel counter: a mutable i64 global imported from a module
 * name no guest may import (core guests may import only `sluice_v1`; a component's core
 * modules are refused if they name it), supplied by the host for each invocation. The
 * guest's own code cannot name it: it is added after every check, under a fresh internal
 * name, and never exported. Kept apart from meter.ts so the workers do not load binaryen.
 */
import type { ErrorData } from "../../../errors/sluice-error.js";

export const FUEL_IMPORT = { module: "sluice_fuel", name: "remaining" } as const;

/**
 * The host's own reads and writes of the counter go through this module, as numbers: the
 * `value` accessor of an i64 WebAssembly.Global is a call into the engine's C++ that makes a
 * BigInt each time (about 120 ns a read and a write on this machine, against under 10 ns for
 * the two calls here; a call reads and writes it at least once each). Every value the counter
 * holds is within ±2^53, so the numbers are exact. ACCESSOR is this module, compiled, as
 * test/sandbox/fuel-counter.test.ts checks:
 *
 * (module
 *   (import "fuel" "remaining" (global $g (mut i64)))
 *   (func (export "set") (param f64) (global.set $g (i64.trunc_f64_s (local.get 0))))
 *   (func (export "get") (result f64) (f64.convert_i64_s (global.get $g))))
 */
export const ACCESSOR = "AGFzbQEAAAABCQJgAXwAYAABfAITAQRmdWVsCXJlbWFpbmluZwN+AQMDAgABBw0CA3NldAAAA2dldAABCg8CBwAgALAkAAsFACMAuQs=";

/** A worker thread's counter: the global guests import, and the host's way to set and read it. */
export interface FuelCounter {
  readonly global: WebAssembly.Global<"i64">;
  /** Sets the counter to a call's budget, before the guest is instantiated. */
  set(budget: number): void;
  /** What is left: below zero once the guest has overdrawn its budget. */
  remaining(): number;
}

/** One counter per worker thread, set to the call's budget before each invocation. */
let counter: FuelCounter | undefined;

export function fuelCounter(): FuelCounter {
  if (!counter) {
    const global = new WebAssembly.Global({ value: "i64", mutable: true }, 0n);
    const access = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(ACCESSOR, "base64")), { fuel: { remaining: global } }).exports as { set: (n: number) => void; get: () => number };
    counter = { global, set: access.set, remaining: access.get };
  }
  return counter;
}

/** Fuel used by an invocation that started with `budget`: more than the budget when it ran out. */
export function fuelUsed(budget: number, fuel: FuelCounter): number {
  return budget - fuel.remaining();
}

/** GUEST_FUEL_EXHAUSTED: the call used more than its budget (a metered guest traps at its next check, or finishes overdrawn). */
export function fuelExhausted(used: number, budget: number): ErrorData {
  return { code: "GUEST_FUEL_EXHAUSTED", message: `guest used up its fuel: ${used} of its budget of ${budget} (hook.yaml limits.fuel)`, details: { used, limit: budget } };
}
