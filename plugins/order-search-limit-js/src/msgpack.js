// A small msgpack codec for ABI v1 (abi/README.md §4): maps with string keys, arrays, str,
// bin, nil, bool, integers (int64 round-trips as BigInt beyond 2^53) and float32/64.
// Extensions are refused, nesting is capped at 64, every length is checked against the
// bytes left. componentize-js takes one ES module plus relative imports, and no msgpack
// package on npm is that small, so the hook carries its own.

const MAX_DEPTH = 64;
const utf8in = new TextDecoder("utf-8", { fatal: true });
const utf8out = new TextEncoder();

/** Decodes one msgpack value that spans all of `bytes`. Throws on malformed input. */
export function decode(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  const need = (n) => { if (n > bytes.length - pos) throw new Error(`msgpack: ${n} bytes declared, ${bytes.length - pos} left`); };
  const u8 = () => { need(1); return bytes[pos++]; };
  const u16 = () => { need(2); const v = view.getUint16(pos); pos += 2; return v; };
  const u32 = () => { need(4); const v = view.getUint32(pos); pos += 4; return v; };
  const int64 = (signed) => {
    need(8);
    const v = signed ? view.getBigInt64(pos) : view.getBigUint64(pos);
    pos += 8;
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
  };
  const str = (n) => { need(n); const s = utf8in.decode(bytes.subarray(pos, pos + n)); pos += n; return s; };
  const bin = (n) => { need(n); const b = bytes.slice(pos, pos + n); pos += n; return b; };
  const array = (n, depth) => { const a = []; for (let i = 0; i < n; i++) a.push(value(depth)); return a; };
  const map = (n, depth) => {
    const m = {};
    for (let i = 0; i < n; i++) {
      const k = value(depth);
      if (typeof k !== "string") throw new Error("msgpack: map key is not a string");
      Object.defineProperty(m, k, { value: value(depth), enumerable: true, writable: true, configurable: true });
    }
    return m;
  };
  function value(depth) {
    if (depth > MAX_DEPTH) throw new Error("msgpack: nesting deeper than 64");
    const t = u8();
    if (t <= 0x7f) return t;
    if (t >= 0xe0) return t - 0x100;
    if ((t & 0xf0) === 0x80) return map(t & 0x0f, depth + 1);
    if ((t & 0xf0) === 0x90) return array(t & 0x0f, depth + 1);
    if ((t & 0xe0) === 0xa0) return str(t & 0x1f);
    switch (t) {
      case 0xc0: return null;
      case 0xc2: return false;
      case 0xc3: return true;
      case 0xc4: return bin(u8());
      case 0xc5: return bin(u16());
      case 0xc6: return bin(u32());
      case 0xca: { need(4); const v = view.getFloat32(pos); pos += 4; return v; }
      case 0xcb: { need(8); const v = view.getFloat64(pos); pos += 8; return v; }
      case 0xcc: return u8();
      case 0xcd: return u16();
      case 0xce: return u32();
      case 0xcf: return int64(false);
      case 0xd0: { const v = u8(); return v > 0x7f ? v - 0x100 : v; }
      case 0xd1: { const v = u16(); return v > 0x7fff ? v - 0x10000 : v; }
      case 0xd2: { need(4); const v = view.getInt32(pos); pos += 4; return v; }
      case 0xd3: return int64(true);
      case 0xd9: return str(u8());
      case 0xda: return str(u16());
      case 0xdb: return str(u32());
      case 0xdc: return array(u16(), depth + 1);
      case 0xdd: return array(u32(), depth + 1);
      case 0xde: return map(u16(), depth + 1);
      case 0xdf: return map(u32(), depth + 1);
      default: throw new Error(`msgpack: type 0x${t.toString(16)} is not used by the ABI`);
    }
  }
  const v = value(0);
  if (pos !== bytes.length) throw new Error("msgpack: trailing bytes");
  return v;
}

/** Encodes a value in the smallest forms; integers beyond 2^53 must be BigInt to stay exact. */
export function encode(root) {
  let buf = new Uint8Array(256);
  let view = new DataView(buf.buffer);
  let pos = 0;
  const room = (n) => {
    if (pos + n <= buf.length) return;
    const next = new Uint8Array(Math.max(buf.length * 2, pos + n));
    next.set(buf);
    buf = next;
    view = new DataView(buf.buffer);
  };
  const byte = (b) => { room(1); buf[pos++] = b; };
  const head = (t, n, bits) => {
    room(1 + bits / 8);
    buf[pos++] = t;
    if (bits === 8) buf[pos++] = n;
    else if (bits === 16) { view.setUint16(pos, n); pos += 2; }
    else { view.setUint32(pos, n); pos += 4; }
  };
  const integer = (v) => {
    if (typeof v === "number" && v >= 0) {
      if (v <= 0x7f) return byte(v);
      if (v <= 0xff) return head(0xcc, v, 8);
      if (v <= 0xffff) return head(0xcd, v, 16);
      if (v <= 0xffffffff) return head(0xce, v, 32);
    } else if (typeof v === "number") {
      if (v >= -32) return byte(v + 0x100);
      if (v >= -0x80) return head(0xd0, v + 0x100, 8);
      if (v >= -0x8000) return head(0xd1, v + 0x10000, 16);
      if (v >= -0x80000000) { room(5); buf[pos++] = 0xd2; view.setInt32(pos, v); pos += 4; return; }
    }
    const big = BigInt(v);
    room(9);
    if (big >= 0n) { buf[pos++] = 0xcf; view.setBigUint64(pos, big); } else { buf[pos++] = 0xd3; view.setBigInt64(pos, big); }
    pos += 8;
  };
  function value(v, depth) {
    if (depth > MAX_DEPTH) throw new Error("msgpack: nesting deeper than 64");
    if (v === null || v === undefined) return byte(0xc0);
    if (v === false) return byte(0xc2);
    if (v === true) return byte(0xc3);
    if (typeof v === "bigint") return integer(v);
    if (typeof v === "number") {
      if (Number.isSafeInteger(v)) return integer(v);
      room(9); buf[pos++] = 0xcb; view.setFloat64(pos, v); pos += 8; return;
    }
    if (typeof v === "string") {
      const b = utf8out.encode(v);
      if (b.length <= 31) byte(0xa0 | b.length);
      else if (b.length <= 0xff) head(0xd9, b.length, 8);
      else if (b.length <= 0xffff) head(0xda, b.length, 16);
      else head(0xdb, b.length, 32);
      room(b.length); buf.set(b, pos); pos += b.length; return;
    }
    if (v instanceof Uint8Array) {
      if (v.length <= 0xff) head(0xc4, v.length, 8);
      else if (v.length <= 0xffff) head(0xc5, v.length, 16);
      else head(0xc6, v.length, 32);
      room(v.length); buf.set(v, pos); pos += v.length; return;
    }
    if (Array.isArray(v)) {
      if (v.length <= 15) byte(0x90 | v.length); else if (v.length <= 0xffff) head(0xdc, v.length, 16); else head(0xdd, v.length, 32);
      for (const x of v) value(x, depth + 1);
      return;
    }
    const keys = Object.keys(v).filter((k) => v[k] !== undefined);
    if (keys.length <= 15) byte(0x80 | keys.length); else if (keys.length <= 0xffff) head(0xde, keys.length, 16); else head(0xdf, keys.length, 32);
    for (const k of keys) { value(k, depth + 1); value(v[k], depth + 1); }
  }
  value(root, 0);
  return buf.slice(0, pos);
}
