/**
 * Where a metered guest finds its fuel counter: a mutable i64 global imported from a module
 * name no guest may import (core guests may import only `sluice_v1`; a component's core
 * modules are refused if they name it), supplied by the host for each invocation. The
 * guest's own code cannot name it: it is added after every check, under a fresh internal
 * name, and never exported. Kept apart from meter.ts so the workers do not load binaryen.
 */
import type { ErrorData } from "../../errors/sluice-error.js";

export const FUEL_IMPORT = { module: "sluice_fuel", name: "remaining" } as const;

/** One counter per worker thread, set to the call's budget before each invocation. */
let counter: WebAssembly.Global<"i64"> | undefined;

export function fuelCounter(): WebAssembly.Global<"i64"> {
  return (counter ??= new WebAssembly.Global({ value: "i64", mutable: true }, 0n));
}

/** Fuel used by an invocation that started with `budget`: more than the budget when it ran out. */
export function fuelUsed(budget: number, global: WebAssembly.Global<"i64">): number {
  return budget - Number(global.value);
}

/** GUEST_FUEL_EXHAUSTED: the call used more than its budget (a metered guest traps at its next check, or finishes overdrawn). */
export function fuelExhausted(used: number, budget: number): ErrorData {
  return { code: "GUEST_FUEL_EXHAUSTED", message: `guest used up its fuel: ${used} of its budget of ${budget} (hook.yaml limits.fuel)`, details: { used, limit: budget } };
}
