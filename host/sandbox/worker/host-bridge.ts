import { fuelCounter } from "../loader/fuel/counter.js";
import { PRICE_AFTER, priceBefore, type HostFunction } from "../loader/fuel/host-prices.js";
import { areaFault, HOST_AREAS } from "./host-areas.js";

/**
 * Guests reach the host functions through a tiny WebAssembly module instead of importing
 * JavaScript functions directly. A JS import makes V8 compile an import wrapper per
 * signature for every new guest module in every worker, on that guest's first
 * instantiation (measured: 180–260 µs of a fresh worker's first call); a wasm-to-wasm
 * import needs none. The bridge is instantiated once per worker and forwards to the host
 * functions of the invocation running now (calls in a worker never overlap).
 *
 * The bridge also ends the call where the guest could otherwise carry on. A JavaScript
 * exception thrown from an import is catchable by the guest's `catch_all` (V8 in Node 20),
 * and a guest that catches `abort` or a host-raised trap could call again thousands of times
 * per unit of fuel; a trap raised by WebAssembly code (`unreachable`) is not catchable. So
 * nothing the host throws reaches the guest: the bridge's JavaScript side keeps it (see
 * {@link takeRaised}), drives the fuel counter below zero and returns, and the bridge, back in
 * WebAssembly, traps as soon as the counter is below zero. The same check ends the call when a
 * host function's price (fuel/host-prices.ts) overdraws the budget, before the work is done.
 *
 * BRIDGE is this module, compiled (test/sandbox/host-bridge.test.ts checks the two agree):
 *
 * (module
 *   (import "host" "fuel" (global $fuel (mut i64)))
 *   (import "host" "log" (func $log (param i32 i32 i32)))
 *   (import "host" "abort" (func $abort (param i32 i32)))
 *   (import "host" "kv_get" (func $kv_get (param i32 i32 i32 i32) (result i32)))
 *   (import "host" "kv_set" (func $kv_set (param i32 i32 i32 i32) (result i32)))
 *   (import "host" "kv_delete" (func $kv_delete (param i32 i32) (result i32)))
 *   (func $end (if (i64.lt_s (global.get $fuel) (i64.const 0)) (then unreachable)))
 *   (func (export "log") (param i32 i32 i32) (call $log (local.get 0) (local.get 1) (local.get 2)) (call $end))
 *   (func (export "abort") (param i32 i32) (call $abort (local.get 0) (local.get 1)) (call $end))
 *   (func (export "kv_get") (param i32 i32 i32 i32) (result i32) (call $kv_get (local.get 0) (local.get 1) (local.get 2) (local.get 3)) (call $end))
 *   (func (export "kv_set") (param i32 i32 i32 i32) (result i32) (call $kv_set (local.get 0) (local.get 1) (local.get 2) (local.get 3)) (call $end))
 *   (func (export "kv_delete") (param i32 i32) (result i32) (call $kv_delete (local.get 0) (local.get 1)) (call $end)))
 */
export const BRIDGE = "AGFzbQEAAAABHQVgA39/fwBgAn9/AGAEf39/fwF/YAJ/fwF/YAAAAlMGBGhvc3QEZnVlbAN+AQRob3N0A2xvZwAABGhvc3QFYWJvcnQAAQRob3N0Bmt2X2dldAACBGhvc3QGa3Zfc2V0AAIEaG9zdAlrdl9kZWxldGUAAwMHBgQAAQICAwctBQNsb2cABgVhYm9ydAAHBmt2X2dldAAIBmt2X3NldAAJCWt2X2RlbGV0ZQAKCk4GCwAjAEIAUwRAAAsLDAAgACABIAIQABAFCwoAIAAgARABEAULDgAgACABIAIgAxACEAULDgAgACABIAIgAxADEAULCgAgACABEAQQBQs=";

/** The host functions of one invocation (abi/README.md §3); kv ones only with the capability. */
export interface InvocationHost {
  /** The guest memory's size now, for the bounds of every host function's arguments (host-areas.ts). */
  memoryBytes(): number;
  log(level: number, ptr: number, len: number): void;
  abort(ptr: number, len: number): void;
  kv_get?(keyPtr: number, keyLen: number, outPtr: number, outCap: number): number;
  kv_set?(keyPtr: number, keyLen: number, valPtr: number, valLen: number): number;
  kv_delete?(keyPtr: number, keyLen: number): number;
}

type Fn = (...args: number[]) => number | void;
let current: InvocationHost | undefined;
let imports: { plain: Record<string, Fn>; kv: Record<string, Fn> } | undefined;
/** What a host function of the invocation running now threw, and the fuel left when it did. */
let raised: { error: unknown; remaining: number } | undefined;

/** Far below any budget's overdraft: once set, the bridge and every check of the guest's own code trap. */
const ENDED = -(2 ** 52);

/**
 * Runs a host function's work for the invocation running now, charged `price` first, and
 * never throwing into the guest: what it throws is kept for {@link takeRaised} and the fuel
 * counter is driven below zero, so the guest traps at once (the bridge's check, or the next
 * check of its own code) and every later host call is refused. Undefined when refused.
 */
export function hostCall<T>(price: number, work: () => T): T | undefined {
  const fuel = fuelCounter();
  const left = fuel.remaining();
  if (raised || left < 0) return undefined;
  fuel.set(left - price);
  if (left - price < 0) return undefined;
  try {
    return work();
  } catch (error) {
    raised = { error, remaining: fuel.remaining() };
    fuel.set(ENDED);
    return undefined;
  }
}

/** Charges what only a host function's answer tells (kv_get's value), inside its {@link hostCall}. */
export function chargeAfter(units: number): void {
  const fuel = fuelCounter();
  fuel.set(fuel.remaining() - units);
}

/**
 * `name` of the invocation running now, through {@link hostCall} at its price. Its arguments'
 * areas are checked first: one outside memory traps, naming the pointer, before any price is
 * worked out from a length that was never checked.
 */
function guarded(name: HostFunction): Fn {
  const priceAfter = PRICE_AFTER[name];
  const areas = HOST_AREAS[name];
  return (...args) => {
    const fault = areaFault(name, areas, args, current?.memoryBytes() ?? 0);
    return hostCall(fault ? 0 : priceBefore(name, args), () => {
      if (fault) throw fault;
      return called(name, priceAfter, args);
    }) ?? 0;
  };
}

/** Runs `name` of the invocation running now, and charges what its answer tells. */
function called(name: HostFunction, priceAfter: ((answer: number) => number) | undefined, args: number[]): number | void {
  const f = current?.[name] as Fn | undefined;
  if (!f) throw new WebAssembly.RuntimeError(`${name} called without the kv capability`);
  const out = f(...args);
  if (priceAfter) chargeAfter(priceAfter(out as number));
  return out;
}

/** The `sluice_v1` import object: the bridge's exports, with the kv functions or without. */
export function bridgeImports(kv: boolean): Record<string, Fn> {
  if (!imports) {
    const module = new WebAssembly.Module(Buffer.from(BRIDGE, "base64"));
    const e = new WebAssembly.Instance(module, {
      host: {
        fuel: fuelCounter().global,
        log: guarded("log"),
        abort: guarded("abort"),
        kv_get: guarded("kv_get"),
        kv_set: guarded("kv_set"),
        kv_delete: guarded("kv_delete"),
      },
    }).exports as Record<string, Fn>;
    imports = { plain: { log: e.log!, abort: e.abort! }, kv: { ...e } };
  }
  return kv ? imports.kv : imports.plain;
}

/**
 * What a host function threw during the invocation running now (an abort, a trap it raised,
 * a store failure), which ended the call: the guest's trap is only its echo. Puts the fuel
 * counter back to what was left then, so the call reports the fuel it really used.
 */
export function takeRaised(): unknown {
  if (!raised) return undefined;
  const { error, remaining } = raised;
  raised = undefined;
  fuelCounter().set(remaining);
  return error;
}

/** Runs `fn` (an instantiation and the guest's calls) with `host` answering the bridge. */
export function withHost<T>(host: InvocationHost, fn: () => T): T {
  const [outer, outerRaised] = [current, raised];
  current = host;
  raised = undefined;
  try {
    return fn();
  } finally {
    [current, raised] = [outer, outerRaised];
  }
}
