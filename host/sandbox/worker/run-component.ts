/**
 * Worker side of component guests: one invocation on a fresh component instance, with the
 * same limits, error codes and report as a core guest (../run-call.ts). The jco glue is
 * imported once per worker from its content-addressed file; the host builds every import
 * object itself through `instantiateCore`, and a request for any import outside the
 * allow-list ends the call before guest code runs.
 */
import { createHash } from "node:crypto";
import { readReply, replyWindow } from "./read-reply.js";
import { printableBytes, printableText } from "../../../abi/printable.js";
import { KV_LIMITS } from "../kv/kv-store.js";
import { LOG_LIMITS, MEMORY_FULL_RATIO } from "../limits.js";
import { readFile } from "node:fs/promises";
import type { ErrorCode } from "../../errors/codes.js";
import type { ErrorData } from "../../errors/sluice-error.js";
import type { SyncKvStore } from "../kv/kv-store.js";
import type { CallReport, CallRequest, CallSpec, LogLine } from "../protocol.js";
import { callReport, type GuestResult } from "./call-report.js";
import type { ComponentCode } from "../loader/component/protocol.js";
import { HOST_INTERFACE, KV_INTERFACE, WIT_IMPORTS } from "../loader/component/wit.js";
import { FUEL_IMPORT, fuelCounter, fuelExhausted, fuelUsed } from "../loader/fuel/counter.js";
import { KvStoreFailure } from "../kv/kv-failure.js";
import { chargeAfter, hostCall, takeRaised } from "./host-bridge.js";
import { areaFault, COMPONENT_AREAS } from "./host-areas.js";
import { PRICE_AFTER, priceBefore, type HostFunction } from "../loader/fuel/host-prices.js";
import { withKeys } from "../../objects/with-keys.js";


type Instantiate = (
  getCoreModule: (name: string) => WebAssembly.Module,
  imports: Record<string, unknown>,
  instantiateCore: (module: WebAssembly.Module, imports?: WebAssembly.Imports) => WebAssembly.Instance,
) => Record<string, unknown>;

/** Glue by its sha256, or why it could not be loaded. Per worker; never evicted (one entry per distinct component). */
const glues = new Map<string, Instantiate | Error>();

async function loadGlue(code: ComponentCode): Promise<void> {
  try {
    const text = await readFile(code.gluePath);
    const sha = createHash("sha256").update(text).digest("hex");
    if (sha !== code.glueSha256) throw new Error(`glue file ${code.gluePath} does not match its hash`);
    // Imported from the verified bytes, not the path: the file cannot change between check and use.
    const mod = (await import(`data:text/javascript;base64,${text.toString("base64")}`)) as { instantiate?: Instantiate };
    if (typeof mod.instantiate !== "function") throw new Error("glue has no instantiate()");
    glues.set(code.glueSha256, mod.instantiate);
  } catch (err) {
    glues.set(code.glueSha256, err instanceof Error ? err : new Error(String(err)));
  }
}

/**
 * Loads the glue of every component among `calls` that this worker has not loaded yet.
 * Undefined when there is nothing to load, so the caller stays synchronous in the common case.
 */
export function pendingComponents(calls: readonly { component?: ComponentCode }[]): Promise<void> | undefined {
  const missing = new Map<string, ComponentCode>();
  for (const c of calls) if (c.component && !glues.has(c.component.glueSha256)) missing.set(c.component.glueSha256, c.component);
  if (missing.size === 0) return undefined;
  return Promise.all([...missing.values()].map(loadGlue)).then(() => undefined);
}

/**
 * As ../run-call.ts does for core guests: each task brings its own deserialized copies of the
 * core modules, and instantiating a copy this thread has not used before costs far more than
 * the instantiation itself, so the first copies seen per component id are kept.
 */
const coreSets = new Map<string, Record<string, WebAssembly.Module>>();
const MAX_COMPONENTS = 64;
function cachedCores(code: ComponentCode): Record<string, WebAssembly.Module> {
  let cores = coreSets.get(code.id);
  if (!cores) {
    if (coreSets.size >= MAX_COMPONENTS) coreSets.delete(coreSets.keys().next().value!);
    coreSets.set(code.id, (cores = code.cores));
  }
  return cores;
}

class GuestAbort extends Error {}
/** Unwinds jco's glue when the reply's window is refused; never leaves this file. */
class ReplyFault extends Error {
  constructor(readonly error: ErrorData) { super(error.message); }
}

/**
 * The longest (ptr, len) the glue may read for each host import, by core signature position
 * of the length: jco decodes a log or abort string, or copies a kv key or value, over the
 * whole length the guest gives, on this worker's JavaScript heap. Clamping the length to
 * just over what the host keeps or accepts bounds that allocation and changes no result: a
 * line is cut at 1,024 bytes as a core guest's is, and a key or value one byte over its limit
 * is refused the same way as a longer one.
 */
const LENGTH_CAPS: Readonly<Record<string, Readonly<Record<string, readonly [number, number][]>>>> = {
  [HOST_INTERFACE]: { log: [[2, LOG_LIMITS.lineBytes]], abort: [[1, LOG_LIMITS.lineBytes]] },
  [KV_INTERFACE]: {
    "kv-get": [[1, KV_LIMITS.keyBytes + 1]],
    "kv-set": [[1, KV_LIMITS.keyBytes + 1], [3, KV_LIMITS.valueBytes + 1]],
    "kv-delete": [[1, KV_LIMITS.keyBytes + 1]],
  },
};

/**
 * The host imports, priced and bounded. `memoryBytes` is the guest memory's size now: every
 * (ptr, len) the glue would read is checked against it before the call is priced, as a core
 * guest's are (host-bridge.ts); jco's glue copies with ArrayBuffer.slice, which would clamp a
 * range past the end of memory instead of refusing it.
 */
function boundedImports(importObject: WebAssembly.Imports, memoryBytes: () => number): WebAssembly.Imports {
  let out: WebAssembly.Imports | undefined;
  for (const [module, caps] of Object.entries(LENGTH_CAPS)) {
    const fns = importObject[module];
    if (!fns) continue;
    const wrapped: Record<string, WebAssembly.ImportValue> = { ...fns };
    for (const [name, positions] of Object.entries(caps)) {
      const fn = fns[name];
      if (typeof fn !== "function") continue;
      // Priced and guarded as a core guest's host calls are (host-bridge.ts): what the glue or
      // the host throws ends the call, and a guest's catch_all never sees it.
      const price = HOST_PRICE_NAMES[name]!;
      const areas = COMPONENT_AREAS[price];
      wrapped[name] = (...args: number[]) => {
        const fault = areaFault(name, areas, args, memoryBytes());
        if (fault) return hostCall(0, () => { throw fault; });
        for (const [at, cap] of positions) if ((args[at]! >>> 0) > cap) args[at] = cap;
        return hostCall(priceBefore(price, args), () => (fn as (...a: number[]) => unknown)(...args));
      };
    }
    (out ??= { ...importObject })[module] = wrapped;
  }
  return out ?? importObject;
}
/** The core ABI's name of each host import, for its price (its core arguments are the same). */
const HOST_PRICE_NAMES: Readonly<Record<string, HostFunction>> = { log: "log", abort: "abort", "kv-get": "kv_get", "kv-set": "kv_set", "kv-delete": "kv_delete" };
class ForbiddenImport extends Error {}

function fail(code: ErrorCode, message: string, details?: Record<string, unknown>): ErrorData {
  return details ? { code, message, details } : { code, message };
}

function classify(err: unknown, memoryBytes: number, grew: boolean, limit: number, abortMessage: string | undefined, budget: number): ErrorData {
  if (fuelCounter().remaining() < 0) return fuelExhausted(fuelUsed(budget, fuelCounter()), budget);
  if (err instanceof KvStoreFailure) return err.toData();
  if (err instanceof GuestAbort) return fail("GUEST_ABORTED", `guest aborted: ${abortMessage ?? ""}`, { guestMessage: abortMessage ?? "" });
  if (err instanceof ForbiddenImport) return fail("MODULE_FORBIDDEN_IMPORT", err.message);
  if (err instanceof RangeError && /call stack/i.test(err.message)) return fail("GUEST_STACK_OVERFLOW", "guest exhausted its call stack (deep or infinite recursion)");
  if (err instanceof RangeError && /memory/i.test(err.message)) return fail("GUEST_MEMORY_LIMIT", `guest could not get memory: ${err.message}`, { limitBytes: limit });
  if (err instanceof WebAssembly.RuntimeError) {
    if (/unreachable/.test(err.message) && grew && memoryBytes >= limit * MEMORY_FULL_RATIO) {
      return fail("GUEST_MEMORY_LIMIT", `guest trapped with its memory at ${memoryBytes} of ${limit} bytes: out of memory`, { usedBytes: memoryBytes, limitBytes: limit });
    }
    return fail("GUEST_TRAP", `guest trapped: ${err.message}`, { trap: err.message });
  }
  return fail("GUEST_TRAP", `guest failed: ${(err as Error)?.message ?? String(err)}`);
}

const utf8 = new TextEncoder();
/** At most LOG_LIMITS.lineBytes of UTF-8, as a core guest's (ptr, len) text is cut, and printable (abi/printable.ts). */
function clip(message: string): string {
  const bytes = utf8.encode(message);
  return bytes.length <= LOG_LIMITS.lineBytes ? printableText(message) : printableBytes(bytes.subarray(0, LOG_LIMITS.lineBytes));
}

/** Runs one invocation of a component guest. Like runCall, every failure is data, never thrown. */
/** `returned`: called once the guest has returned, before the host decodes its reply (run-call.ts). */
export function runComponentCall(spec: CallSpec & { component: ComponentCode }, request: CallRequest, kv: () => SyncKvStore, returned: () => void = () => {}): CallReport {
  const code = spec.component;
  const logs: LogLine[] = [];
  let droppedLogs = 0;
  const memories: { memory: WebAssembly.Memory; initial: number }[] = [];
  // The largest memory is the guest's own; jco's shim modules define none or tiny ones.
  const memoryBytes = (): number => memories.reduce((n, m) => Math.max(n, m.memory.buffer.byteLength), 0);
  // A JS component starts with its memory over half full (SpiderMonkey: 145 of 256 pages), so
  // "out of memory" also needs the memory to have grown during the call.
  const grew = (): boolean => memories.some((m) => m.memory.buffer.byteLength > m.initial);
  let abortMessage: string | undefined;
  // One budget for the whole call, shared by every core instance of the component; nothing an
  // earlier call's host functions raised carries over.
  takeRaised();
  const fuel = fuelCounter();
  fuel.set(spec.fuel);
  const t0 = performance.now();
  const done = (r: GuestResult): CallReport =>
    callReport(r, { logs, droppedLogs, durationMs: performance.now() - t0, memoryBytes: memoryBytes(), fuel: fuelUsed(spec.fuel, fuel) });

  if (request.bytes.byteLength > spec.inputBytes) {
    return done({ ok: false, error: fail("INPUT_TOO_LARGE", `request is ${request.bytes.byteLength} bytes; the plugin's input limit is ${spec.inputBytes}`, { size: request.bytes.byteLength, limit: spec.inputBytes }) });
  }
  const instantiate = glues.get(code.glueSha256);
  if (typeof instantiate !== "function") {
    return done({ ok: false, error: fail("WORKER_CRASHED", `the worker could not load the component's glue: ${instantiate?.message ?? "not loaded"}`) });
  }

  // Built with a null prototype: nothing from globalThis is reachable through a missing key.
  const provided: Record<string, Record<string, unknown>> = Object.create(null);
  provided["sluice:hook/host"] = {
    log(level: number, message: string) {
      if (logs.length >= LOG_LIMITS.lines) { droppedLogs++; return; }
      logs.push({ level: Math.max(0, Math.min(3, level | 0)), message: clip(String(message)) });
    },
    abort(message: string) {
      abortMessage = clip(String(message));
      throw new GuestAbort();
    },
  };
  if (spec.kvScope !== null) {
    const scope = spec.kvScope;
    provided["sluice:hook/kv"] = {
      kvGet: (key: Uint8Array) => {
        const value = kv().get(scope, key);
        if (value) chargeAfter(PRICE_AFTER.kv_get!(value.byteLength));
        return value;
      },
      kvSet: (key: Uint8Array, value: Uint8Array) => kv().set(scope, key, value),
      kvDelete: (key: Uint8Array) => kv().delete(scope, key),
    };
  }
  const imports = new Proxy(provided, {
    get(target, key) {
      if (typeof key === "string" && Object.hasOwn(target, key)) return target[key];
      const known = typeof key === "string" ? WIT_IMPORTS[key] : undefined;
      throw new ForbiddenImport(known
        ? `component imports "${String(key)}", which needs the "${known.capability}" capability and no scope was granted for this call`
        : `component asked for import "${String(key)}", which is not in the sluice:hook world`);
    },
  });
  const cores = cachedCores(code);
  const getCoreModule = (name: string): WebAssembly.Module => {
    const module = cores[name];
    if (!module) throw new ForbiddenImport(`component glue asked for unknown core module "${name}"`);
    return module;
  };
  // The reply the core export pointed at, checked by the same reader as a core guest's.
  let window: Uint8Array | undefined;
  const handleExport = `${code.handler}#handle`;
  const instantiateCore = (module: WebAssembly.Module, importObject: WebAssembly.Imports = {}): WebAssembly.Instance => {
    // Set last: whatever the glue passed under the reserved name, the counter is the host's (no core module may import it itself).
    const instance = new WebAssembly.Instance(module, withKeys(boundedImports(importObject, memoryBytes), { [FUEL_IMPORT.module]: { [FUEL_IMPORT.name]: fuel.global } }));
    for (const value of Object.values(instance.exports)) if (value instanceof WebAssembly.Memory) memories.push({ memory: value, initial: value.buffer.byteLength });
    const handle = instance.exports[handleExport];
    if (typeof handle !== "function") return instance;
    const memory = Object.values(instance.exports).find((v): v is WebAssembly.Memory => v instanceof WebAssembly.Memory);
    // jco's glue would copy the list with ArrayBuffer.slice, which clamps a range past the end
    // of memory instead of refusing it: the (ptr, len) pair is checked here, before the glue reads it.
    const checked = (...args: unknown[]): unknown => {
      const ret = (handle as (...a: unknown[]) => number)(...args) >>> 0;
      const buffer = memory?.buffer;
      if (!buffer || ret + 8 > buffer.byteLength) throw new ReplyFault(fail("OUTPUT_OUT_OF_BOUNDS", `the reply's (ptr, len) area at ${ret} lies outside the guest's ${buffer?.byteLength ?? 0}-byte memory`, { ptr: ret, len: 8 }));
      const view = new DataView(buffer);
      const w = replyWindow(buffer, view.getUint32(ret, true), view.getUint32(ret + 4, true), spec.outputBytes);
      if (!w.ok) throw new ReplyFault(w.error);
      window = w.bytes;
      return ret;
    };
    return { exports: Object.freeze(withKeys(instance.exports, { [handleExport]: checked })) } as WebAssembly.Instance;
  };

  try {
    const exports = instantiate(getCoreModule, imports, instantiateCore);
    const handler = exports[code.handler] as { handle?: (request: Uint8Array) => unknown } | undefined;
    if (typeof handler?.handle !== "function") return done({ ok: false, error: fail("MODULE_MISSING_EXPORT", `component does not export ${code.handler}.handle`) });
    const out = handler.handle(request.bytes);
    // A host function's throw ended the call: the guest ran at most to its next check after it.
    const raised = takeRaised();
    if (raised !== undefined) return done({ ok: false, error: classify(raised, memoryBytes(), grew(), spec.memoryBytes, abortMessage, spec.fuel) });
    if (fuel.remaining() < 0) return done({ ok: false, error: fuelExhausted(fuelUsed(spec.fuel, fuel), spec.fuel) });
    if (!(out instanceof Uint8Array) || !window) return done({ ok: false, error: fail("OUTPUT_INVALID", "handle must return list<u8>") });
  } catch (thrown) {
    const err = takeRaised() ?? thrown;
    if (err === thrown && fuel.remaining() < 0) return done({ ok: false, error: fuelExhausted(fuelUsed(spec.fuel, fuel), spec.fuel) });
    if (err instanceof ReplyFault) return done({ ok: false, error: err.error });
    return done({ ok: false, error: classify(err, memoryBytes(), grew(), spec.memoryBytes, abortMessage, spec.fuel) });
  }

  returned();
  return done(readReply(window, request.raw, { major: spec.abiMajor, minor: spec.abiMinor }));
}
