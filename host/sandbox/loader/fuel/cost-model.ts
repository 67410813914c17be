/**
 * The cost model of metered guests (abi/README.md §11): what each piece of guest work costs
 * in fuel. Part of the contract: changing a figure changes every plugin's fuel use, so it
 * bumps METER_VERSION, and so does any change to meter.ts that changes what it writes: the
 * version keys the instrumented-module caches, on disk too, which would otherwise serve
 * modules metered the old way.
 */
export const METER_VERSION = 6;

/** Every instruction of the guest's code (structural `block` markers excepted). */
export const INSTRUCTION_COST = 1;
/** memory.fill, memory.copy and memory.init: one unit per this many bytes, plus the instruction. */
export const BYTES_PER_UNIT = 16;
/** memory.grow: per page (64 KiB) asked for, as if the page were written once. */
export const PAGE_COST = 65_536 / BYTES_PER_UNIT;
/*
 * The figures below are what each operation was measured to cost (test/bench/fuel-prices.ts,
 * bench scenario 16), in units of a plain loop's instruction: priced by the time they buy, so
 * that no kind of work buys much more time per unit than ordinary code does.
 */
/** call_indirect and return_call_indirect, on top of the instruction: the table read and the signature check. */
export const CALL_INDIRECT_COST = 3;
/** return_call and return_call_indirect, on top of the instruction: V8 11 rebuilds the frame in place. */
export const RETURN_CALL_COST = 1;
/** memory.fill, memory.copy and memory.init, on top of the instruction and their bytes: the call into the engine. */
export const BULK_OP_COST = 8;
/** memory.grow, on top of its pages: asking the engine for memory costs about a thousand instructions, even for 0 pages. */
export const MEMORY_GROW_COST = 2_000;
/** table.grow, table.fill, table.copy and table.init, on top of their entries: the call into the engine. */
export const TABLE_OP_COST = 100;
/**
 * table.grow: per entry asked for; table.fill, table.copy and table.init: per entry of their
 * size operand. Writing a function reference into a table also writes its dispatch entry:
 * about 40 instructions' time each.
 */
export const TABLE_ENTRY_COST = 40;
/**
 * `throw` and `rethrow`: the engine builds the exception and unwinds to its handler, about
 * 0.5 µs, paid where it is thrown (a catch runs only after a throw).
 */
export const THROW_COST = 5_000;
/**
 * Each load from memory (every load, SIMD and atomic ones included), on top of the
 * instruction, by the size of the guest's memory when it runs: `[up to this many bytes,
 * price]`. A load whose address depends on the last one waits for memory, and how long
 * depends on whether the memory fits the caches and the TLB's reach, which its size bounds.
 * Measured (bench scenario 18, fixture `fuel-price-cache-miss`: a chain of dependent loads
 * from random addresses, each page written once) at about 5-12 ns a load up to 256 KiB,
 * 13-24 ns up to 4 MiB, 40-112 ns at 8 MiB (past the TLB's reach), 110-150 ns at 16 MiB and
 * up to 200 ns at 256 MiB, against about 0.6 ns a unit of plain code: each price covers such
 * a load at about 1 ns a unit. Stores are not priced: they wait for nothing (random stores
 * over 256 MiB, about 11 ns each, and as many independent loads, fit the instruction's unit
 * and the loop around them). The size is known when the instance starts and changes only at
 * `memory.grow`, so the price is the same on every run of the same module and input.
 */
export const LOAD_PRICES: readonly (readonly [upToBytes: number, price: number])[] = [
  [256 * 1024, 0],
  [4 * 1024 * 1024, 24],
  [8 * 1024 * 1024, 128],
  [16 * 1024 * 1024, 144],
  [32 * 1024 * 1024, 180],
  [Infinity, 220],
];

/** The price of one load, on top of its instruction, from a memory of `bytes`. */
export function loadPrice(bytes: number): number {
  return LOAD_PRICES.find(([upTo]) => bytes <= upTo)![1];
}

/** Every call of a host function (`sluice_v1.*`), before it runs: leaving the guest and coming back. */
export const HOST_CALL_COST = 100;
/** Every call of a kv function, instead of HOST_CALL_COST: a lookup or write in the store (SQLite). */
export const KV_CALL_COST = 20_000;
/** Per byte a host function reads from or writes into the guest's memory or the store. */
export const HOST_BYTE_COST = 2;
