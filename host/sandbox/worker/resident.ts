/**
 * A new WebAssembly.Memory is only reserved: the kernel backs each page on its first touch,
 * and on a VM that costs far more than the write itself (16 MiB took 22-150 ms here).
 * Fuel cannot price that (whether a memory is new depends on the worker's pool, and fuel must
 * not), so the host pays it, as host work, before a guest's clock starts.
 */

/** The smallest page size of the machines the host runs on: touching each one backs them all. */
export const OS_PAGE = 4096;

/**
 * Writes a zero into every page of `memory`. A zero, because a fresh memory holds zeroes
 * and must still hold only zeroes afterwards; a write, because a read would only map the
 * kernel's shared zero page and leave the real fault for the guest's first store.
 */
export function makeResident(memory: WebAssembly.Memory): void {
  const bytes = new Uint8Array(memory.buffer);
  for (let at = 0; at < bytes.length; at += OS_PAGE) bytes[at] = 0;
}
