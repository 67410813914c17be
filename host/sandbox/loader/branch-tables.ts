/**
 * How many targets the `br_table` instructions of a module's code hold, read by walking
 * every function body's instructions once (linear in the code's size, a few milliseconds
 * for megabytes). The compilers downstream are not linear in them: a 65,000-target
 * `br_table` took binaryen (the fuel meter) and V8's optimising compiler over a second each,
 * so a module of fifty of them held an upload for tens of seconds. The loader bounds them
 * before either runs (module-limits.ts). The module must already have passed
 * WebAssembly.validate: an opcode outside what it accepts is a BinaryFormatError.
 */
import { BinaryFormatError, readU32, type Cursor } from "../wasm-binary.js";

export interface BranchTables {
  /** Targets of every br_table in the module, added up. */
  total: number;
  /** The br_table with the most targets, and the index of its function among defined functions. */
  largest: { targets: number; function: number };
}

function skipLeb(c: Cursor): void {
  while (c.pos < c.bytes.length) if ((c.bytes[c.pos++]! & 0x80) === 0) return;
  throw new BinaryFormatError("unexpected end of code");
}

/** A value type: one byte, or a reference type's prefix and its heap type. */
function skipValType(c: Cursor): void {
  const t = c.bytes[c.pos++];
  if (t === 0x63 || t === 0x64) skipLeb(c);
}

/** A block type: empty (0x40), a value type, or a type index (a signed LEB). */
function skipBlockType(c: Cursor): void {
  const t = c.bytes[c.pos]!;
  if (t === 0x63 || t === 0x64) { c.pos++; skipLeb(c); } else skipLeb(c);
}

function skipMemarg(c: Cursor): void {
  const align = readU32(c);
  if (align & 0x40) skipLeb(c); // memory index (multi-memory)
  skipLeb(c); // offset
}

/** What follows each one-byte opcode: nothing, or the immediates the scan skips (see scanBody). */
const NONE = 0, LEB = 1, TWO_LEBS = 2, BLOCK = 3, MEMARG = 4, F32 = 5, F64 = 6, OTHER = 7;
const IMMEDIATES = new Uint8Array(256);
for (const op of [0x07, 0x08, 0x09, 0x0c, 0x0d, 0x10, 0x12, 0x14, 0x15, 0x18, 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x3f, 0x40, 0x41, 0x42, 0xd0, 0xd2, 0xd5, 0xd6]) IMMEDIATES[op] = LEB;
for (const op of [0x11, 0x13]) IMMEDIATES[op] = TWO_LEBS;
for (const op of [0x02, 0x03, 0x04, 0x06]) IMMEDIATES[op] = BLOCK;
for (let op = 0x28; op <= 0x3e; op++) IMMEDIATES[op] = MEMARG;
IMMEDIATES[0x43] = F32;
IMMEDIATES[0x44] = F64;
for (const op of [0x0e, 0x1c, 0x1f, 0xfb, 0xfc, 0xfd, 0xfe]) IMMEDIATES[op] = OTHER;

/** The 0xfc (misc) subopcodes' LEB immediates: saturating truncations none, bulk memory and tables one or two. */
function skipMisc(c: Cursor): void {
  const sub = readU32(c);
  const lebs = sub <= 7 ? 0 : sub === 8 || sub === 10 || sub === 12 || sub === 14 ? 2 : sub <= 17 ? 1 : -1;
  if (lebs < 0) throw new BinaryFormatError(`unknown 0xfc subopcode ${sub}`);
  for (let i = 0; i < lebs; i++) skipLeb(c);
}

function skipSimd(c: Cursor): void {
  const sub = readU32(c);
  if (sub <= 11 || sub === 92 || sub === 93) skipMemarg(c);
  else if (sub === 12 || sub === 13) c.pos += 16;
  else if (sub >= 21 && sub <= 34) c.pos += 1;
  else if (sub >= 84 && sub <= 91) { skipMemarg(c); c.pos += 1; }
}

function skipAtomic(c: Cursor): void {
  const sub = readU32(c);
  if (sub === 3) c.pos += 1; // atomic.fence
  else skipMemarg(c);
}

/** Walks one function body's instructions from `c.pos` to `end`, adding its br_tables to `out`. */
function scanBody(c: Cursor, end: number, f: number, out: BranchTables): void {
  const bytes = c.bytes;
  while (c.pos < end) {
    const op = bytes[c.pos++]!;
    switch (IMMEDIATES[op]) {
      case NONE: break;
      case LEB: while (bytes[c.pos++]! & 0x80); break;
      case TWO_LEBS: while (bytes[c.pos++]! & 0x80); while (bytes[c.pos++]! & 0x80); break;
      case BLOCK: skipBlockType(c); break;
      case MEMARG: skipMemarg(c); break;
      case F32: c.pos += 4; break;
      case F64: c.pos += 8; break;
      default: other(op, c, f, out);
    }
  }
  if (c.pos !== end) throw new BinaryFormatError(`function ${f}'s code runs past its body`);
}

function other(op: number, c: Cursor, f: number, out: BranchTables): void {
  switch (op) {
    case 0x0e: {
      const targets = readU32(c);
      for (let i = 0; i <= targets; i++) skipLeb(c); // the targets and the default
      out.total += targets;
      if (targets > out.largest.targets) out.largest = { targets, function: f };
      return;
    }
    case 0x1c: for (let n = readU32(c); n > 0; n--) skipValType(c); return;
    case 0x1f:
      skipBlockType(c);
      for (let n = readU32(c); n > 0; n--) { const kind = c.bytes[c.pos++]!; if (kind < 2) skipLeb(c); skipLeb(c); }
      return;
    case 0xfc: skipMisc(c); return;
    case 0xfd: skipSimd(c); return;
    case 0xfe: skipAtomic(c); return;
    default: throw new BinaryFormatError(`opcode 0x${op.toString(16)} is not supported`);
  }
}

/** The br_table targets of the module's code section. `codeStart` is the section's content start. */
export function branchTables(bytes: Uint8Array, codeStart: number): BranchTables {
  const out: BranchTables = { total: 0, largest: { targets: 0, function: -1 } };
  const c: Cursor = { bytes, pos: codeStart };
  for (let n = readU32(c), f = 0; f < n; f++) {
    const size = readU32(c);
    const end = c.pos + size;
    for (let k = readU32(c); k > 0; k--) { skipLeb(c); skipValType(c); }
    scanBody(c, end, f, out);
  }
  return out;
}
