/**
 * The cost model of metered guests (abi/README.md §11): what each piece of guest work costs
 * in fuel. Part of the contract: changing a figure changes every plugin's fuel use, so it
 * bumps METER_VERSION, and so does any change to meter.ts that changes what it writes: the
 * version keys the instrumented-module caches, on disk too, which would otherwise serve
 * modules metered the old way.
 */
export const METER_VERSION = 4;

/** Every instruction of the guest's code (structural `block` markers excepted). */
export const INSTRUCTION_COST = 1;
/** memory.fill, memory.copy and memory.init: one unit per this many bytes, plus the instruction. */
export const BYTES_PER_UNIT = 16;
/** memory.grow: per page (64 KiB) asked for, as if the page were written once. */
export const PAGE_COST = 65_536 / BYTES_PER_UNIT;
/** table.grow: per entry asked for; table.fill, table.copy and table.init: per entry of their size operand. */
export const TABLE_ENTRY_COST = 1;
