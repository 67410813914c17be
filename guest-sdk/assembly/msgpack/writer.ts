import { Kind, Value } from "../value";
import { utf8Length, writeUtf8 } from "../utf8";

/**
 * Encodes a Value as ABI v1 msgpack into one exact-size buffer (measured first, then
 * written, so nothing is reallocated). Canonical forms, matching the host's msgpackr:
 * the smallest integer form within 32 bits, int64 (0xd3) beyond that, uint64 (0xcf) only
 * above 2^63-1; floats as float64; strings as UTF-8 with the smallest header.
 */
export function encode(v: Value): Uint8Array {
  const out = new Uint8Array(<i32>sizeOf(v));
  const end = write(v, out.dataStart);
  assert(end == out.dataStart + <usize>out.length, "msgpack writer measured wrong");
  return out;
}

function intSize(i: i64): usize {
  if (i >= 0) return i < 0x80 ? 1 : i <= 0xff ? 2 : i <= 0xffff ? 3 : i <= 0xffffffff ? 5 : 9;
  return i >= -32 ? 1 : i >= -128 ? 2 : i >= -32768 ? 3 : i >= -2147483648 ? 5 : 9;
}

function headerSize(n: usize, fix: usize): usize {
  return n < fix ? 1 : n <= 0xffff ? 3 : 5;
}

function strSize(s: string): usize {
  const n = <usize>utf8Length(s);
  return (n < 32 ? 1 : n <= 0xff ? 2 : n <= 0xffff ? 3 : 5) + n;
}

function sizeOf(v: Value): usize {
  switch (v.kind) {
    case Kind.Nil: case Kind.Bool: return 1;
    case Kind.Int: return intSize(v.rawBits());
    case Kind.UInt: case Kind.Float: return 9;
    case Kind.Str: return strSize(v.rawString());
    case Kind.Bin: {
      const n = <usize>v.rawBytes().length;
      return (n <= 0xff ? 2 : n <= 0xffff ? 3 : 5) + n;
    }
    case Kind.Arr: {
      const items = v.rawItems();
      let size = headerSize(items.length, 16);
      for (let i = 0; i < items.length; i++) size += sizeOf(unchecked(items[i]));
      return size;
    }
    case Kind.Map: {
      const items = v.rawItems();
      const names = v.rawNames();
      let size = headerSize(items.length, 16);
      for (let i = 0; i < items.length; i++) size += strSize(unchecked(names[i])) + sizeOf(unchecked(items[i]));
      return size;
    }
  }
  unreachable();
  return 0;
}

// @ts-ignore: decorator
@inline function put8(p: usize, b: u32): usize { store<u8>(p, <u8>b); return p + 1; }
// @ts-ignore: decorator
@inline function put16(p: usize, b: u32): usize { store<u16>(p, bswap<u16>(<u16>b)); return p + 2; }
// @ts-ignore: decorator
@inline function put32(p: usize, b: u32): usize { store<u32>(p, bswap<u32>(b)); return p + 4; }
// @ts-ignore: decorator
@inline function put64(p: usize, b: u64): usize { store<u64>(p, bswap<u64>(b)); return p + 8; }

function writeInt(i: i64, p: usize): usize {
  if (i >= 0) {
    if (i < 0x80) return put8(p, <u32>i);
    if (i <= 0xff) return put8(put8(p, 0xcc), <u32>i);
    if (i <= 0xffff) return put16(put8(p, 0xcd), <u32>i);
    if (i <= 0xffffffff) return put32(put8(p, 0xce), <u32>i);
    return put64(put8(p, 0xd3), <u64>i);
  }
  if (i >= -32) return put8(p, <u32>i & 0xff);
  if (i >= -128) return put8(put8(p, 0xd0), <u32>i & 0xff);
  if (i >= -32768) return put16(put8(p, 0xd1), <u32>i & 0xffff);
  if (i >= -2147483648) return put32(put8(p, 0xd2), <u32>i);
  return put64(put8(p, 0xd3), <u64>i);
}

function writeHeader(n: u32, p: usize, fix: u32, code16: u32): usize {
  if (n < 16) return put8(p, fix | n);
  if (n <= 0xffff) return put16(put8(p, code16), n);
  return put32(put8(p, code16 + 1), n);
}

function writeStr(s: string, p: usize): usize {
  const n = <u32>utf8Length(s);
  if (n < 32) p = put8(p, 0xa0 | n);
  else if (n <= 0xff) p = put8(put8(p, 0xd9), n);
  else if (n <= 0xffff) p = put16(put8(p, 0xda), n);
  else p = put32(put8(p, 0xdb), n);
  return writeUtf8(s, p);
}

function write(v: Value, p: usize): usize {
  switch (v.kind) {
    case Kind.Nil: return put8(p, 0xc0);
    case Kind.Bool: return put8(p, v.rawBool() ? 0xc3 : 0xc2);
    case Kind.Int: return writeInt(v.rawBits(), p);
    case Kind.UInt: return put64(put8(p, 0xcf), <u64>v.rawBits());
    case Kind.Float: return put64(put8(p, 0xcb), reinterpret<u64>(v.rawFloat()));
    case Kind.Str: return writeStr(v.rawString(), p);
    case Kind.Bin: {
      const bytes = v.rawBytes();
      const n = <u32>bytes.length;
      if (n <= 0xff) p = put8(put8(p, 0xc4), n);
      else if (n <= 0xffff) p = put16(put8(p, 0xc5), n);
      else p = put32(put8(p, 0xc6), n);
      memory.copy(p, bytes.dataStart, n);
      return p + n;
    }
    case Kind.Arr: {
      const items = v.rawItems();
      p = writeHeader(<u32>items.length, p, 0x90, 0xdc);
      for (let i = 0; i < items.length; i++) p = write(unchecked(items[i]), p);
      return p;
    }
    case Kind.Map: {
      const items = v.rawItems();
      const names = v.rawNames();
      p = writeHeader(<u32>items.length, p, 0x80, 0xde);
      for (let i = 0; i < items.length; i++) {
        p = writeStr(unchecked(names[i]), p);
        p = write(unchecked(items[i]), p);
      }
      return p;
    }
  }
  unreachable();
  return 0;
}
