/**
 * Used instances kept for reuse, per worker thread. A fresh `WebAssembly.Instance` per
 * invocation was most of a small hook's guest time on this machine (the bench hook's 1 KB
 * call: 23-26 µs on a fresh instance, 8 µs on a reused one), and V8 puts instances in its old
 * space, so at full load one per call also meant a full mark-compact of the worker every few
 * hundred milliseconds, pausing it for milliseconds.
 *
 * Reuse never changes what a guest can see (abi/README.md §8). Only a module the loader gave
 * a reset export (fuel/add-reset.ts) is kept, and only after an invocation that succeeded
 * without growing its memory; before the next one, its memory (zeroed when it was kept) gets
 * back the image its data segments wrote at instantiation, and the reset export sets its
 * globals to their initial values and runs its start function. Its tables were never
 * written (the loader checks) and nothing else of an instance is state. A memory's size is
 * part of the key, so it still depends only on the module and the request.
 */
export interface GuestExports {
  sluice_alloc(n: number): number;
  sluice_handle(ptr: number, len: number): unknown;
}

export interface Kept {
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
  exports: GuestExports;
  reset: () => void;
}

/** Bounds per worker: a few dozen hooks, and memory a worker would hold anyway for its pool of spares. */
const MAX_KEPT = 32;
const MAX_KEPT_BYTES = 64 << 20;

const kept = new Map<string, Kept>();
let keptBytes = 0;

/** What each reusable module's data segments write into a zeroed memory (the bytes below its last segment's end). */
const images = new WeakMap<WebAssembly.Module, Uint8Array>();

export function keyOf(moduleId: string, pages: number, kv: boolean): string {
  return `${moduleId}|${pages}|${kv ? "kv" : "-"}`;
}

/** A kept instance of `module` for `key`, taken out of the pool (so one invocation has it at a time), with its memory as a fresh instance would find it. */
export function takeInstance(key: string, module: WebAssembly.Module): Kept | undefined {
  const k = kept.get(key);
  if (!k) return undefined;
  kept.delete(key);
  keptBytes -= k.memory.buffer.byteLength;
  const image = images.get(module);
  if (k.module !== module || !image) return undefined;
  new Uint8Array(k.memory.buffer).set(image);
  return k;
}

/** Whether takeInstance would find a kept instance of `module` for `key` (and so need no new memory). */
export function hasInstance(key: string, module: WebAssembly.Module): boolean {
  return kept.get(key)?.module === module && images.has(module);
}

/** Remembers what a new instance's memory holds before any guest code ran: instantiation wrote only its data segments, all below `imageBytes`. */
export function recordImage(module: WebAssembly.Module, memory: WebAssembly.Memory, imageBytes: number): void {
  if (images.has(module)) return;
  images.set(module, new Uint8Array(memory.buffer, 0, Math.min(imageBytes, memory.buffer.byteLength)).slice());
}

/** Keeps an instance after a successful invocation: its memory zeroed now, so it holds no caller's data while it waits. */
export function keepInstance(key: string, k: Kept): boolean {
  const bytes = k.memory.buffer.byteLength;
  if (bytes > MAX_KEPT_BYTES / 4 || !images.has(k.module)) return false;
  new Uint8Array(k.memory.buffer).fill(0);
  const old = kept.get(key);
  if (old) { kept.delete(key); keptBytes -= old.memory.buffer.byteLength; }
  kept.set(key, k);
  keptBytes += bytes;
  while (kept.size > MAX_KEPT || keptBytes > MAX_KEPT_BYTES) {
    const [oldest, o] = kept.entries().next().value!;
    kept.delete(oldest);
    keptBytes -= o.memory.buffer.byteLength;
  }
  return true;
}
