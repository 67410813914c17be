import { readReply, replyWindow } from "./read-reply.js";
import { printableBytes } from "../../../abi/printable.js";
import type { ErrorCode } from "../../errors/codes.js";
import type { ErrorData } from "../../errors/sluice-error.js";
import { KV_STATUS, type SyncKvStore } from "../kv/kv-store.js";
import { KvStoreFailure } from "../kv/kv-failure.js";
import type { CallReport, CallRequest, CallSpec, LogLine } from "../protocol.js";
import { callReport, type GuestResult } from "./call-report.js";
import { runComponentCall } from "./run-component.js";
import { returnMemory, stockMemory, takeMemory } from "./memory-pool.js";
import { hasInstance, keepInstance, keyOf, recordImage, takeInstance, type GuestExports, type Kept } from "./instance-pool.js";
import { moduleOf } from "./module-cache.js";
import { HOST_MEMORY_IMPORT } from "../wasm-binary.js";
import { bridgeImports, takeRaised, withHost, type InvocationHost } from "./host-bridge.js";
import { LOG_LIMITS, MEMORY_FULL_RATIO, WASM_PAGE } from "../limits.js";
import { FUEL_IMPORT, fuelCounter, fuelExhausted, fuelUsed } from "../loader/fuel/counter.js";


/**
 * A guest copies its request in and decodes it, so it needs a few times the request's size
 * of memory. Supplying that much from the start saves the grows, and a memory that did not
 * grow goes back to the pool (memory-pool.ts) instead of being dropped. The size depends
 * only on the module and this request, never on earlier invocations (abi/README.md §8).
 */
const HEADROOM_PER_REQUEST_BYTE = 4;

function startPages(spec: CallSpec, requestBytes: number): number {
  const { initial, maximum } = spec.memoryPages;
  return Math.min(maximum, initial + Math.floor((requestBytes * HEADROOM_PER_REQUEST_BYTE) / WASM_PAGE));
}

/** A call's starting memory size and the key of its kept instances: worked out once, by readyCall, for runCall. */
export interface CallShape { pages: number; reuseKey: string | undefined }

function shapeOf(spec: CallSpec, requestBytes: number): CallShape {
  const pages = startPages(spec, requestBytes);
  return { pages, reuseKey: spec.reuse ? keyOf(spec.moduleId, pages, spec.kvScope !== null) : undefined };
}

/**
 * The host's work for a call that must not be on the guest's clock, done before the worker
 * starts it (worker.ts): a call that will need a new memory (no kept instance, no spare of its
 * shape) gets it created and made resident now, so the guest's first touches of its pages do
 * not wait on the kernel. Depends only on the pool; what the guest sees is the same either way.
 * Returns the call's shape for runCall (undefined for a call that gets no memory here).
 */
export function readyCall(spec: CallSpec, requestBytes: number): CallShape | undefined {
  if (spec.component || requestBytes > spec.inputBytes) return undefined;
  const shape = shapeOf(spec, requestBytes);
  if (shape.reuseKey === undefined || !hasInstance(shape.reuseKey, moduleOf(spec))) stockMemory(shape.pages, spec.memoryPages.maximum);
  return shape;
}

/** Thrown by the abort import to unwind the guest; never leaves this file. */
class GuestAbort extends Error {}

function fail(code: ErrorCode, message: string, details?: Record<string, unknown>): ErrorData {
  return details ? { code, message, details } : { code, message };
}

function classifyThrow(err: unknown, memory: WebAssembly.Memory | undefined, spec: CallSpec, abortMessage: string | undefined): ErrorData {
  // First: a guest stopped by its meter traps with `unreachable`, whatever its memory looks like.
  if (fuelCounter().remaining() < 0) return fuelExhausted(fuelUsed(spec.fuel, fuelCounter()), spec.fuel);
  if (err instanceof KvStoreFailure) return err.toData();
  if (err instanceof GuestAbort) return fail("GUEST_ABORTED", `guest aborted: ${abortMessage ?? ""}`, { guestMessage: abortMessage ?? "" });
  if (err instanceof RangeError && /call stack/i.test(err.message)) return fail("GUEST_STACK_OVERFLOW", "guest exhausted its call stack (deep or infinite recursion)");
  if (err instanceof RangeError && /memory/i.test(err.message)) return fail("GUEST_MEMORY_LIMIT", `guest could not get memory: ${err.message}`, { limitBytes: spec.memoryBytes });
  if (err instanceof WebAssembly.RuntimeError) {
    const used = memory?.buffer.byteLength ?? 0;
    if (/unreachable/.test(err.message) && used >= spec.memoryBytes * MEMORY_FULL_RATIO) {
      return fail("GUEST_MEMORY_LIMIT", `guest trapped with its memory at ${used} of ${spec.memoryBytes} bytes: out of memory`, { usedBytes: used, limitBytes: spec.memoryBytes });
    }
    return fail("GUEST_TRAP", `guest trapped: ${err.message}`, { trap: err.message });
  }
  return fail("GUEST_TRAP", `guest failed: ${(err as Error)?.message ?? String(err)}`);
}

/**
 * An instance whose start function has run: a kept one (instance-pool.ts) put back into a
 * fresh one's state, or a new one. `onMemory` learns the memory before any guest code runs,
 * so a failure there is still classified against it. `lease` is set when it may be kept.
 */
function instantiate(spec: CallSpec, pages: number, reuseKey: string | undefined, onMemory: (m: WebAssembly.Memory) => void): { memory: WebAssembly.Memory; exports: GuestExports; lease?: Kept } {
  const module = moduleOf(spec);
  const kept = reuseKey === undefined ? undefined : takeInstance(reuseKey, module);
  if (kept) {
    onMemory(kept.memory);
    kept.reset();
    return { memory: kept.memory, exports: kept.exports, lease: kept };
  }
  const memory = takeMemory(pages, spec.memoryPages.maximum);
  onMemory(memory);
  const instance = new WebAssembly.Instance(module, {
    sluice_v1: bridgeImports(spec.kvScope !== null),
    [HOST_MEMORY_IMPORT.module]: { [HOST_MEMORY_IMPORT.name]: memory },
    [FUEL_IMPORT.module]: { [FUEL_IMPORT.name]: fuelCounter().global },
  });
  const exports = instance.exports as unknown as GuestExports;
  if (!spec.reuse) return { memory, exports };
  // The module has no start function now: its reset runs it, on this first use too.
  const reset = instance.exports[spec.reuse.reset] as () => void;
  recordImage(module, memory, spec.reuse.imageBytes);
  const lease = { module, memory, exports, reset };
  reset();
  return { memory, exports, lease };
}

/**
 * Runs one guest invocation on a fresh instance, or on a used one put back into exactly a
 * fresh one's state (instance-pool.ts): no memory or globals survive it. Every failure comes
 * back as data with a code; nothing the guest does is thrown to the caller. `returned` is
 * called once the guest has returned, before its reply is decoded and checked: that work
 * is the host's, and must not run on the guest's clock (worker.ts stops it there).
 */
export function runCall(spec: CallSpec, request: CallRequest, kv: () => SyncKvStore, returned: () => void = noop, shape?: CallShape): CallReport {
  if (spec.component) return runComponentCall(spec as CallSpec & { component: NonNullable<CallSpec["component"]> }, request, kv, returned);
  const logs: LogLine[] = [];
  let droppedLogs = 0;
  let memory: WebAssembly.Memory | undefined;
  let abortMessage: string | undefined;
  const { pages, reuseKey } = shape ?? shapeOf(spec, request.bytes.byteLength);
  /** The instance, when it may be kept for the next invocation. */
  let lease: Kept | undefined;
  const fuel = fuelCounter();
  fuel.set(spec.fuel);
  // durationMs counts from here, so a memory readyCall created before is not in it: that is
  // host work, off the clock too, and it would make the same call's figure depend on the pool.
  const t0 = performance.now();
  const done = (r: GuestResult): CallReport => {
    const report = callReport(r, { logs, droppedLogs, durationMs: performance.now() - t0, memoryBytes: memory?.buffer.byteLength ?? 0, fuel: fuelUsed(spec.fuel, fuel) });
    // Last: the reply has been decoded (or copied) out of this memory by now.
    const keep = lease !== undefined && r.ok && memory!.buffer.byteLength === pages * WASM_PAGE && keepInstance(reuseKey!, lease);
    if (memory && !keep) returnMemory(memory, pages, spec.memoryPages.maximum);
    return report;
  };

  if (request.bytes.byteLength > spec.inputBytes) {
    return done({ ok: false, error: fail("INPUT_TOO_LARGE", `request is ${request.bytes.byteLength} bytes; the plugin's input limit is ${spec.inputBytes}`, { size: request.bytes.byteLength, limit: spec.inputBytes }) });
  }

  // The host bridge has checked every (ptr, len) against the memory's size now (host-areas.ts),
  // before pricing the call; views are taken from the current buffer, as memory.grow detaches old ones.
  const view = (ptr: number, len: number): Uint8Array => new Uint8Array(memory!.buffer, ptr >>> 0, len >>> 0);
  // A guest's bytes become text only through printableBytes: escaped, never raw (abi/printable.ts).
  const text = (ptr: number, len: number): string => printableBytes(view(ptr, Math.min(len >>> 0, LOG_LIMITS.lineBytes)));
  const host: InvocationHost = {
    memoryBytes: () => memory?.buffer.byteLength ?? 0,
    log(level, ptr, len) {
      if (logs.length >= LOG_LIMITS.lines) { droppedLogs++; return; }
      logs.push({ level: Math.max(0, Math.min(3, level! | 0)), message: text(ptr!, len!) });
    },
    abort(ptr, len) {
      abortMessage = text(ptr!, len!);
      throw new GuestAbort();
    },
  };
  if (spec.kvScope !== null) {
    const scope = spec.kvScope;
    host.kv_get = (kp, kl, op, oc) => {
      const value = kv().get(scope, view(kp!, kl!));
      if (value === undefined) return KV_STATUS.notFound;
      if (value.byteLength <= (oc! >>> 0)) view(op!, value.byteLength).set(value);
      return value.byteLength;
    };
    host.kv_set = (kp, kl, vp, vl) => kv().set(scope, view(kp!, kl!), view(vp!, vl!));
    host.kv_delete = (kp, kl) => kv().delete(scope, view(kp!, kl!));
  }

  // Everything the guest runs (its start function included) runs with `host` behind the bridge.
  const reached = withHost(host, (): Uint8Array | CallReport => {
    try {
      const got = instantiate(spec, pages, reuseKey, (m) => { memory = m; });
      const { exports } = got;
      ({ memory, lease } = got);
      const len = request.bytes.byteLength;
      const ptr = exports.sluice_alloc(len) >>> 0;
      if (fuel.remaining() < 0) return done({ ok: false, error: fuelExhausted(fuelUsed(spec.fuel, fuel), spec.fuel) });
      const input = (ptr === 0 && len > 0) || ptr + len > memory.buffer.byteLength ? undefined : view(ptr, len);
      if (!input) return done({ ok: false, error: fail("GUEST_MEMORY_LIMIT", `sluice_alloc(${len}) returned ${ptr}, not a usable buffer`, { limitBytes: spec.memoryBytes }) });
      input.set(request.bytes);
      const packed = exports.sluice_handle(ptr, len);
      if (fuel.remaining() < 0) return done({ ok: false, error: fuelExhausted(fuelUsed(spec.fuel, fuel), spec.fuel) });
      if (typeof packed !== "bigint") return done({ ok: false, error: fail("OUTPUT_INVALID", "sluice_handle must return an i64 (out_ptr << 32 | out_len)") });
      const window = replyWindow(memory.buffer, Number((packed >> 32n) & 0xffffffffn), Number(packed & 0xffffffffn), spec.outputBytes);
      return window.ok ? window.bytes : done(window);
    } catch (err) {
      // A host function's throw ended the call (host-bridge.ts): the guest's trap only echoes it.
      return done({ ok: false, error: classifyThrow(takeRaised() ?? err, memory, spec, abortMessage) });
    }
  });
  if (!(reached instanceof Uint8Array)) return reached;
  returned();
  return done(readReply(reached, request.raw, { major: spec.abiMajor, minor: spec.abiMinor }));
}

function noop(): void {}
