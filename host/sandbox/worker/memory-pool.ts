import { WASM_PAGE } from "../limits.js";
import { makeResident } from "./resident.js";

/**
 * Spare guest memories, per worker thread. Creating a WebAssembly.Memory (and collecting
 * it later) is most of what a fresh instance costs; a memory that did not grow during its
 * invocation is zeroed and handed to the next invocation with the same shape instead. The
 * next instance sees exactly what a new memory would hold: zeroes at the declared initial
 * size, then its own data segments, applied by instantiation. A memory that grew is
 * dropped, so its size can never tell one invocation about another.
 *
 * Every memory the pool hands out is resident (resident.ts): a spare stayed so (it was
 * zeroed by writing), and a new one is made so when it is created. The worker creates it
 * before the call's clock starts (stockMemory, via run-call.ts readyCall), so the kernel's
 * first-touch faults are the host's time; takeMemory creating one itself is the fallback of
 * callers that run a call without a clock.
 *
 * Nothing is created when a module is loaded into a worker: the shape a call needs depends
 * on its request (run-call.ts startPages), a module may never be called on this worker, and
 * the first call gets its memory off the clock anyway; only latency would move, at the cost
 * of holding up to the memory limit per module per worker.
 */
const SPARES_PER_SHAPE = 2;
const MAX_SHAPES = 64;
const pool = new Map<string, WebAssembly.Memory[]>();

function shapeKey(initial: number, maximum: number): string {
  return `${initial}/${maximum}`;
}

function residentMemory(initial: number, maximum: number): WebAssembly.Memory {
  const memory = new WebAssembly.Memory({ initial, maximum });
  makeResident(memory);
  return memory;
}

export function takeMemory(initial: number, maximum: number): WebAssembly.Memory {
  return pool.get(shapeKey(initial, maximum))?.pop() ?? residentMemory(initial, maximum);
}

/**
 * Makes sure the next takeMemory of this shape finds a spare, creating a resident one if
 * none is left. Returns whether one is there: a memory that cannot be created now (address
 * space) is not created, and the call's own takeMemory then fails as the guest's.
 */
export function stockMemory(initial: number, maximum: number): boolean {
  const spares = sparesOf(shapeKey(initial, maximum));
  if (spares.length > 0) return true;
  try {
    spares.push(residentMemory(initial, maximum));
    return true;
  } catch {
    return false;
  }
}

function sparesOf(key: string): WebAssembly.Memory[] {
  let spares = pool.get(key);
  if (!spares) {
    if (pool.size >= MAX_SHAPES) pool.delete(pool.keys().next().value!);
    pool.set(key, (spares = []));
  }
  return spares;
}

export function returnMemory(memory: WebAssembly.Memory, initial: number, maximum: number): void {
  if (memory.buffer.byteLength !== initial * WASM_PAGE) return;
  const spares = sparesOf(shapeKey(initial, maximum));
  if (spares.length >= SPARES_PER_SHAPE) return;
  new Uint8Array(memory.buffer).fill(0);
  spares.push(memory);
}
