/**
 * Guests reach the host functions through a tiny WebAssembly module instead of importing
 * JavaScript functions directly. A JS import makes V8 compile an import wrapper per
 * signature for every new guest module in every worker, on that guest's first
 * instantiation (measured: 180–260 µs of a fresh worker's first call); a wasm-to-wasm
 * import needs none. The bridge is instantiated once per worker and forwards to the host
 * functions of the invocation running now (calls in a worker never overlap).
 *
 * BRIDGE is this module, compiled (test/sandbox/host-bridge.test.ts checks the two agree):
 *
 * (module
 *   (import "host" "log" (func $log (param i32 i32 i32)))
 *   (import "host" "abort" (func $abort (param i32 i32)))
 *   (import "host" "kv_get" (func $kv_get (param i32 i32 i32 i32) (result i32)))
 *   (import "host" "kv_set" (func $kv_set (param i32 i32 i32 i32) (result i32)))
 *   (import "host" "kv_delete" (func $kv_delete (param i32 i32) (result i32)))
 *   (func (export "log") (param i32 i32 i32) (call $log (local.get 0) (local.get 1) (local.get 2)))
 *   (func (export "abort") (param i32 i32) (call $abort (local.get 0) (local.get 1)))
 *   (func (export "kv_get") (param i32 i32 i32 i32) (result i32) (call $kv_get (local.get 0) (local.get 1) (local.get 2) (local.get 3)))
 *   (func (export "kv_set") (param i32 i32 i32 i32) (result i32) (call $kv_set (local.get 0) (local.get 1) (local.get 2) (local.get 3)))
 *   (func (export "kv_delete") (param i32 i32) (result i32) (call $kv_delete (local.get 0) (local.get 1))))
 */
export const BRIDGE = "AGFzbQEAAAABGgRgA39/fwBgAn9/AGAEf39/fwF/YAJ/fwF/AkYFBGhvc3QDbG9nAAAEaG9zdAVhYm9ydAABBGhvc3QGa3ZfZ2V0AAIEaG9zdAZrdl9zZXQAAgRob3N0CWt2X2RlbGV0ZQADAwYFAAECAgMHLQUDbG9nAAUFYWJvcnQABgZrdl9nZXQABwZrdl9zZXQACAlrdl9kZWxldGUACQo4BQoAIAAgASACEAALCAAgACABEAELDAAgACABIAIgAxACCwwAIAAgASACIAMQAwsIACAAIAEQBAs=";

/** The host functions of one invocation (abi/README.md §3); kv ones only with the capability. */
export interface InvocationHost {
  log(level: number, ptr: number, len: number): void;
  abort(ptr: number, len: number): void;
  kv_get?(keyPtr: number, keyLen: number, outPtr: number, outCap: number): number;
  kv_set?(keyPtr: number, keyLen: number, valPtr: number, valLen: number): number;
  kv_delete?(keyPtr: number, keyLen: number): number;
}

type Fn = (...args: number[]) => number | void;
let current: InvocationHost | undefined;
let imports: { plain: Record<string, Fn>; kv: Record<string, Fn> } | undefined;

function kvOf(name: "kv_get" | "kv_set" | "kv_delete"): Fn {
  return (...args) => {
    const f = current?.[name] as Fn | undefined;
    if (!f) throw new WebAssembly.RuntimeError(`${name} called without the kv capability`);
    return f(...args);
  };
}

/** The `sluice_v1` import object: the bridge's exports, with the kv functions or without. */
export function bridgeImports(kv: boolean): Record<string, Fn> {
  if (!imports) {
    const module = new WebAssembly.Module(Buffer.from(BRIDGE, "base64"));
    const e = new WebAssembly.Instance(module, {
      host: {
        log: (level: number, ptr: number, len: number) => current!.log(level, ptr, len),
        abort: (ptr: number, len: number) => current!.abort(ptr, len),
        kv_get: kvOf("kv_get"),
        kv_set: kvOf("kv_set"),
        kv_delete: kvOf("kv_delete"),
      },
    }).exports as Record<string, Fn>;
    imports = { plain: { log: e.log!, abort: e.abort! }, kv: { ...e } };
  }
  return kv ? imports.kv : imports.plain;
}

/** Runs `fn` (an instantiation and the guest's calls) with `host` answering the bridge. */
export function withHost<T>(host: InvocationHost, fn: () => T): T {
  const outer = current;
  current = host;
  try {
    return fn();
  } finally {
    current = outer;
  }
}
