import { WASM_PAGE } from "../limits.js";

/**
 * Spare guest memories, per worker thread. Creating a WebAssembly.Memory (and collecting
 * it later) is most of what a fresh instance costs; a memory that did not grow during its
 * invocation is zeroed and handed to the next invocation with the same shape instead. The
 * next instance sees exactly what a new memory would hold: zeroes at the declared initial
 * size, then its own data segments, applied by instantiation. A memory that grew is
 * dropped, so its size can never tell one invocation about another.
 */
const SPARES_PER_SHAPE = 2;
const MAX_SHAPES = 64;
const pool = new Map<string, WebAssembly.Memory[]>();

function shapeKey(initial: number, maximum: number): string {
  return `${initial}/${maximum}`;
}

export function takeMemory(initial: number, maximum: number): WebAssembly.Memory {
  return pool.get(shapeKey(initial, maximum))?.pop() ?? new WebAssembly.Memory({ initial, maximum });
}

export function returnMemory(memory: WebAssembly.Memory, initial: number, maximum: number): void {
  if (memory.buffer.byteLength !== initial * WASM_PAGE) return;
  const key = shapeKey(initial, maximum);
  let spares = pool.get(key);
  if (!spares) {
    if (pool.size >= MAX_SHAPES) pool.delete(pool.keys().next().value!);
    pool.set(key, (spares = []));
  }
  if (spares.length >= SPARES_PER_SHAPE) return;
  new Uint8Array(memory.buffer).fill(0);
  spares.push(memory);
}
