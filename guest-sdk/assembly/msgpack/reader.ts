import { Value } from "../value";
import { readUtf8 } from "../utf8";

/** Containers nested deeper than this are refused (abi/README.md §4). */
export const MAX_DEPTH: i32 = 64;

/** The outcome of decoding: a value, or the first error with its byte offset. */
export class Decoded {
  constructor(public value: Value | null, public error: string | null) {}
  get ok(): bool { return this.error == null; }
}

/**
 * Decodes exactly one msgpack value from `len` bytes at `ptr`. Untrusted input: every
 * declared length and count is checked against the bytes that remain before anything is
 * read or allocated; extension types, non-string map keys, nesting deeper than 64 and
 * trailing bytes are refused.
 */
export function decode(ptr: usize, len: usize): Decoded {
  const r = new Reader(ptr, len);
  const v = r.value(1);
  if (v != null && r.pos != r.end) r.fail("trailing bytes after the value");
  return r.error != null ? new Decoded(null, r.error) : new Decoded(v, null);
}

/** Decodes a whole Uint8Array. */
export function decodeBytes(bytes: Uint8Array): Decoded {
  return decode(bytes.dataStart, <usize>bytes.length);
}

class Reader {
  pos: usize;
  end: usize;
  error: string | null = null;

  constructor(public start: usize, len: usize) {
    this.pos = start;
    this.end = start + len;
  }

  fail(message: string): Value | null {
    if (this.error == null) this.error = message + " at byte " + (this.pos - this.start).toString();
    return null;
  }

  // Compares by subtraction so a hostile 4 GiB length cannot overflow the address.
  has(n: u64): bool { return n <= <u64>(this.end - this.pos); }

  u8(): u32 { const b = <u32>load<u8>(this.pos); this.pos += 1; return b; }
  u16(): u32 { const b = <u32>bswap<u16>(load<u16>(this.pos)); this.pos += 2; return b; }
  u32(): u32 { const b = bswap<u32>(load<u32>(this.pos)); this.pos += 4; return b; }
  u64(): u64 { const b = bswap<u64>(load<u64>(this.pos)); this.pos += 8; return b; }

  /** Reads an n-byte big-endian length or count after checking the n bytes exist. */
  size(n: i32): i64 {
    if (!this.has(n)) { this.fail("truncated length"); return -1; }
    return n == 1 ? <i64>this.u8() : n == 2 ? <i64>this.u16() : <i64>this.u32();
  }

  value(depth: i32): Value | null {
    if (!this.has(1)) return this.fail("unexpected end of input");
    const t = this.u8();
    if (t <= 0x7f) return Value.int(<i64>t);
    if (t >= 0xe0) return Value.int(<i64><i8>t);
    if ((t & 0xe0) == 0xa0) return this.str(<i64>(t & 0x1f));
    if ((t & 0xf0) == 0x90) return this.arr(<i64>(t & 0x0f), depth);
    if ((t & 0xf0) == 0x80) return this.map(<i64>(t & 0x0f), depth);
    switch (t) {
      case 0xc0: return Value.nil();
      case 0xc2: return Value.bool(false);
      case 0xc3: return Value.bool(true);
      case 0xc4: return this.bin(this.size(1));
      case 0xc5: return this.bin(this.size(2));
      case 0xc6: return this.bin(this.size(4));
      case 0xca: return this.has(4) ? Value.float(<f64>reinterpret<f32>(this.u32())) : this.fail("truncated float32");
      case 0xcb: return this.has(8) ? Value.float(reinterpret<f64>(this.u64())) : this.fail("truncated float64");
      case 0xcc: return this.has(1) ? Value.int(<i64>this.u8()) : this.fail("truncated uint8");
      case 0xcd: return this.has(2) ? Value.int(<i64>this.u16()) : this.fail("truncated uint16");
      case 0xce: return this.has(4) ? Value.int(<i64>this.u32()) : this.fail("truncated uint32");
      case 0xcf: return this.has(8) ? Value.uint(this.u64()) : this.fail("truncated uint64");
      case 0xd0: return this.has(1) ? Value.int(<i64><i8>this.u8()) : this.fail("truncated int8");
      case 0xd1: return this.has(2) ? Value.int(<i64><i16>this.u16()) : this.fail("truncated int16");
      case 0xd2: return this.has(4) ? Value.int(<i64><i32>this.u32()) : this.fail("truncated int32");
      case 0xd3: return this.has(8) ? Value.int(<i64>this.u64()) : this.fail("truncated int64");
      case 0xd9: return this.str(this.size(1));
      case 0xda: return this.str(this.size(2));
      case 0xdb: return this.str(this.size(4));
      case 0xdc: return this.arr(this.size(2), depth);
      case 0xdd: return this.arr(this.size(4), depth);
      case 0xde: return this.map(this.size(2), depth);
      case 0xdf: return this.map(this.size(4), depth);
    }
    this.pos -= 1;
    if (t == 0xc1) return this.fail("reserved type byte 0xc1");
    return this.fail("extension types are not used by the ABI (type byte 0x" + t.toString(16) + ")");
  }

  str(n: i64): Value | null {
    if (n < 0) return null;
    if (!this.has(<u64>n)) return this.fail("string length " + n.toString() + " exceeds the remaining input");
    const s = readUtf8(this.pos, <usize>n);
    this.pos += <usize>n;
    return Value.str(s);
  }

  bin(n: i64): Value | null {
    if (n < 0) return null;
    if (!this.has(<u64>n)) return this.fail("binary length " + n.toString() + " exceeds the remaining input");
    const bytes = new Uint8Array(<i32>n);
    memory.copy(bytes.dataStart, this.pos, <usize>n);
    this.pos += <usize>n;
    return Value.bin(bytes);
  }

  arr(n: i64, depth: i32): Value | null {
    if (n < 0) return null;
    if (depth > MAX_DEPTH) return this.fail("nesting deeper than " + MAX_DEPTH.toString());
    // Each item takes at least one byte: refuse a count the input cannot hold before allocating.
    if (!this.has(<u64>n)) return this.fail("array count " + n.toString() + " exceeds the remaining input");
    const out = Value.arr();
    for (let i: i64 = 0; i < n; i++) {
      const item = this.value(depth + 1);
      if (item == null) return null;
      out.push(item);
    }
    return out;
  }

  map(n: i64, depth: i32): Value | null {
    if (n < 0) return null;
    if (depth > MAX_DEPTH) return this.fail("nesting deeper than " + MAX_DEPTH.toString());
    if (!this.has(<u64>n * 2)) return this.fail("map count " + n.toString() + " exceeds the remaining input");
    const out = Value.map();
    for (let i: i64 = 0; i < n; i++) {
      const at = this.pos;
      const key = this.value(depth + 1);
      if (key == null) return null;
      if (!key.isString()) { this.pos = at; return this.fail("map keys must be strings"); }
      const item = this.value(depth + 1);
      if (item == null) return null;
      out.rawAppend(key.rawString(), item);
    }
    return out;
  }
}
