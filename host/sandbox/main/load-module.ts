/**
 * Loading a guest: every static check and the compilation run on the loader thread
 * (load-worker.ts), so an upload never holds the event loop, whatever the module. The
 * thread starts on the first load, keeps the process alive only while a load is pending,
 * and a loader that dies (a module that exhausts it) fails that load alone and is
 * started again for the next one. A host following a shared database holds it warm
 * ({@link holdLoader}).
 */
import { createHash } from "node:crypto";
import { Worker } from "node:worker_threads";
import { SluiceError } from "../../errors/sluice-error.js";
import type { LoadedModule, LoadOptions } from "../loaded-module.js";
import type { LoaderReply, LoaderRequest } from "../loader-protocol.js";
import { workerFile } from "../worker-file.js";
import { CONTINUE_GUEST } from "../benign-guest.js";
import { withKeys } from "../../objects/with-keys.js";

export { sha256Hex, type LoadedModule, type LoadOptions } from "../loaded-module.js";

/** A load that takes longer is abandoned and its loader terminated (a compile that never ends). */
const LOAD_TIMEOUT_MS = 120_000;
/** An idle loader is ended after this long: its heap (and jco, once a component was loaded) is not kept for uploads that may never come. */
const LOADER_IDLE_MS = 10_000;
let idleTimer: NodeJS.Timeout | undefined;

interface Pending { resolve: (m: LoadedModule) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }

let loader: Worker | undefined;
const pending = new Map<number, Pending>();
let nextId = 1;

function settleAll(error: SluiceError): void {
  for (const [id, p] of pending) { clearTimeout(p.timer); pending.delete(id); p.reject(error); }
}

function startLoader(): Worker {
  const worker = new Worker(workerFile("loader/load-worker"), {
    // The host's own flags (e.g. --input-type) are not all valid in a worker, and none is needed.
    execArgv: [],
    // The loader's heap holds jco's transpiler for components; guests never run here.
    resourceLimits: { maxOldGenerationSizeMb: 512, stackSizeMb: 4 },
  });
  worker.on("message", (reply: LoaderReply) => {
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    clearTimeout(p.timer);
    if (pending.size === 0) {
      worker.unref();
      scheduleIdleEnd(worker);
    }
    if (reply.ok) p.resolve(reply.loaded);
    else p.reject(SluiceError.fromData(reply.error));
  });
  const died = (why: string): void => {
    if (loader === worker) loader = undefined;
    settleAll(new SluiceError("MODULE_INVALID", `the module could not be checked: the loader thread ${why}`));
  };
  worker.on("error", (err) => died(`failed (${(err as NodeJS.ErrnoException).code ?? err.message})`));
  worker.on("exit", (code) => died(`exited (${code})`));
  return worker;
}

function scheduleIdleEnd(worker: Worker): void {
  clearTimeout(idleTimer);
  if (holds > 0) return;
  idleTimer = setTimeout(() => { if (pending.size === 0 && holds === 0 && loader === worker) { loader = undefined; void worker.terminate(); } }, LOADER_IDLE_MS);
  idleTimer.unref();
}

let holds = 0;

/**
 * Starts the loader now and keeps it (and binaryen, which takes one to three seconds to
 * start on a busy machine) until the returned function is called: for a host that must
 * load a release another host activated within a second. It never keeps the process alive.
 */
export function holdLoader(): () => void {
  holds++;
  clearTimeout(idleTimer);
  const worker = (loader ??= startLoader());
  if (pending.size === 0) worker.unref();
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    holds--;
    if (holds === 0 && loader && pending.size === 0) scheduleIdleEnd(loader);
  };
}

/**
 * {@link holdLoader}, resolving once the loader has checked, metered and compiled a tiny
 * benign guest: binaryen and the loader's code paths are then warm.
 */
export async function warmLoader(): Promise<() => void> {
  const release = holdLoader();
  await loadModule(Buffer.from(CONTINUE_GUEST, "base64")).catch(() => undefined);
  return release;
}

/**
 * Work on a large module's bytes is done in slices of this size, one per event-loop turn:
 * hashing or copying 15 MB at once holds the loop for 15-25 ms on a busy two-core machine;
 * a 1 MiB slice takes about 1-2 ms.
 */
const SLICE = 1 << 20;
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** SHA-256 of `bytes`, one slice per event-loop turn (a module up to one slice is hashed at once). */
export async function sha256Async(bytes: Uint8Array): Promise<string> {
  const hash = createHash("sha256");
  for (let at = 0; at < bytes.byteLength; at += SLICE) {
    if (at > 0) await nextTurn();
    hash.update(bytes.subarray(at, at + SLICE));
  }
  return hash.digest("hex");
}

/**
 * The module bytes a caller gave, as a view (never a copy, never changed): a Uint8Array
 * (a Node Buffer included) or an ArrayBuffer; anything else is MODULE_INVALID.
 */
export function moduleBytes(wasm: unknown): Uint8Array {
  if (wasm instanceof Uint8Array) return wasm;
  if (wasm instanceof ArrayBuffer) return new Uint8Array(wasm);
  throw new SluiceError("MODULE_INVALID", `the module must be a Uint8Array (or Buffer) or an ArrayBuffer of WebAssembly bytes, got ${wasm === null ? "null" : typeof wasm}`);
}

/**
 * Validates a guest statically and compiles it with its memory and tables capped, on the
 * loader thread. No guest code runs (not even its start function): that only ever
 * happens inside a sandbox worker.
 * @example const module = await loadModule(await readFile("hook.wasm"), { limits: { timeoutMs: 50 } });
 */
export async function loadModule(wasm: Uint8Array | ArrayBuffer, options: LoadOptions = {}, sha256?: string): Promise<LoadedModule> {
  const bytes = moduleBytes(wasm);
  const hash = sha256 ?? (await sha256Async(bytes));
  clearTimeout(idleTimer);
  const worker = (loader ??= startLoader());
  worker.ref();
  const id = nextId++;
  const begin: LoaderRequest = { kind: "begin", id, length: bytes.byteLength, sha256: hash, options: withKeys(options.limits ? { limits: { ...options.limits } } : {}, options.capabilities ? { capabilities: [...options.capabilities] } : {}) };
  const result = new Promise<LoadedModule>((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new SluiceError("MODULE_INVALID", `the module could not be checked within ${LOAD_TIMEOUT_MS} ms`));
      if (loader === worker) { loader = undefined; void worker.terminate(); }
    }, LOAD_TIMEOUT_MS);
    timer.unref();
    pending.set(id, { resolve, reject, timer });
  });
  worker.postMessage(begin);
  // Sent in slices, each copied and transferred: structured clone would copy the whole module in one turn.
  // A copy, never `bytes.slice`: on a Node Buffer that is a view, and transferring it would
  // detach the caller's ArrayBuffer (or, for a pooled Buffer, unrelated Buffers' memory).
  for (let at = 0; at < bytes.byteLength; at += SLICE) {
    if (at > 0) await nextTurn();
    if (!pending.has(id)) break;
    const part = new Uint8Array(bytes.subarray(at, at + SLICE));
    worker.postMessage({ kind: "part", id, offset: at, part } satisfies LoaderRequest, [part.buffer]);
  }
  return result;
}
