/**
 * The ABI's encoding rules (abi/README.md §4), checked on untrusted bytes before they are
 * decoded. A general msgpack decoder is lenient where the ABI is not: it lets the last of
 * two equal keys win (so `continue` then `short_circuit` would serve the guest's result),
 * takes integer map keys, decodes timestamps and other extensions, and renames
 * `__proto__`. This scanner walks the bytes once without building anything and says
 * whether they are one well-formed ABI value; only then does msgpackr decode them.
 */
import { isUtf8 } from "node:buffer";
import { printableText } from "./printable.js";

export const MAX_DEPTH = 64;

/** Map keys that would reach an object's prototype machinery when decoded into a JavaScript object. */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

export type ScanResult =
  | { ok: true }
  /**
   * `malformed`: the bytes break an encoding rule; otherwise the value uses a reserved key
   * (a shape rule), or `tooLong` says which top-level array holds more elements than allowed.
   */
  | { ok: false; malformed: boolean; message: string; tooLong?: { key: string; size: number; max: number } };

/** Bounds checked while scanning, before the values behind them are walked. */
export interface ScanOptions {
  /** The most elements the array under each named top-level key may hold (the reply's `patch`). */
  topLevelArrayMax?: Readonly<Record<string, number>>;
  /**
   * Refuse what the ABI's senders never write (abi/README.md §4): an integer, string,
   * binary, array or map header that is not the smallest form for its value, and float32.
   * Set for replies: the host reads a guest's bytes exactly as the vectors spell them.
   */
  smallest?: boolean;
}

class Malformed extends Error {}
class Reserved extends Error {}
class TooLong extends Error {
  constructor(readonly key: string, readonly size: number, readonly max: number) { super(`${key} holds ${size} elements; at most ${max} are allowed`); }
}

const keyDecoder = new TextDecoder("utf-8", { fatal: true });

/** A short ASCII key is read without the decoder (most keys are); anything else goes through it. */
function keyOf(bytes: Uint8Array): string {
  if (bytes.length > 32) return keyDecoder.decode(bytes);
  let key = "";
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c >= 0x80) return keyDecoder.decode(bytes);
    key += String.fromCharCode(c);
  }
  return key;
}

/** Whether `s` is valid UTF-8: a short ASCII string is checked here, where a native call would cost more than the check. */
function utf8(s: Uint8Array): boolean {
  if (s.length > 64) return isUtf8(s);
  for (let i = 0; i < s.length; i++) if (s[i]! >= 0x80) return isUtf8(s);
  return true;
}

/**
 * Checks that `bytes` hold exactly one ABI msgpack value. The path of each value is kept
 * as a trail of segments and spelled out only for an error: building a string per value
 * cost most of the scan of a large reply.
 */
export function scanStrict(bytes: Uint8Array, options: ScanOptions = {}): ScanResult {
  let pos = 0;
  const trail: (string | number)[] = [];
  const smallest = options.smallest === true;
  /** Refuses a header at `at` whose value `n` fits a smaller form (`limit`: the largest value the next smaller form holds). */
  const small = (at: number, n: number, limit: number, what: string): number => {
    if (smallest && n <= limit) throw new Malformed(`${what} at byte ${at} is not in its smallest form (${n} fits a shorter header); the ABI's senders write the smallest form`);
    return n;
  };
  const limits = options.topLevelArrayMax;
  /** The JSON Pointer of the value at `depth` (1 is the top level). */
  const pathAt = (depth: number): string => {
    let p = "";
    for (let i = 0; i < depth - 1; i++) p += `/${typeof trail[i] === "number" ? trail[i] : escape(trail[i] as string)}`;
    return p;
  };
  const need = (n: number): void => {
    if (n > bytes.length - pos) throw new Malformed(`a value at byte ${pos} declares ${n} more bytes than remain`);
  };
  const u8 = (): number => { need(1); return bytes[pos++]!; };
  const be = (n: number): number => {
    need(n);
    let v = 0;
    for (let i = 0; i < n; i++) v = v * 256 + bytes[pos++]!;
    return v;
  };
  const str = (len: number): Uint8Array => {
    need(len);
    const s = bytes.subarray(pos, pos + len);
    if (!utf8(s)) throw new Malformed(`the string at byte ${pos} is not valid UTF-8`);
    pos += len;
    return s;
  };
  const strHeader = (b: number): number | undefined => {
    const at = pos - 1;
    if (b >= 0xa0 && b <= 0xbf) return b & 0x1f;
    if (b === 0xd9) return small(at, be(1), 31, "a str8");
    if (b === 0xda) return small(at, be(2), 0xff, "a str16");
    if (b === 0xdb) return small(at, be(4), 0xffff, "a str32");
    return undefined;
  };
  /** An integer of `n` bytes after its header, refused when a smaller form holds it. */
  const int = (at: number, b: number): void => {
    const n = b === 0xcc || b === 0xd0 ? 1 : b === 0xcd || b === 0xd1 ? 2 : b === 0xce || b === 0xd2 ? 4 : 8;
    need(n);
    if (smallest) {
      let v = 0n;
      for (let i = 0; i < n; i++) v = (v << 8n) | BigInt(bytes[pos + i]!);
      if (b >= 0xd0) v = BigInt.asIntN(n * 8, v);
      // The smallest form: positive fixint, uint8/16/32 for non-negative values up to 2^32-1,
      // int64 or uint64 (both 8 bytes: encoders differ, the host writes int64) up to 2^63-1 and
      // uint64 only above; negative fixint, int8/16/32/64 for negatives.
      const fits = v >= 0n
        ? (v < 0x80n ? "fixint" : v <= 0xffn ? 0xcc : v <= 0xffffn ? 0xcd : v <= 0xffffffffn ? 0xce : v <= 0x7fffffffffffffffn ? 0xd3 : 0xcf)
        : (v >= -32n ? "fixint" : v >= -128n ? 0xd0 : v >= -32768n ? 0xd1 : v >= -2147483648n ? 0xd2 : 0xd3);
      const eightBytes = fits === 0xd3 && b === 0xcf;
      if (fits !== b && !eightBytes) throw new Malformed(`the integer ${v} at byte ${at} is not in its smallest form; the ABI's senders write the smallest form`);
    }
    pos += n;
  };
  const value = (depth: number): void => {
    if (depth > MAX_DEPTH) throw new Malformed(`nesting is deeper than ${MAX_DEPTH} at ${pathAt(depth) || "/"}`);
    const at = pos;
    const b = u8();
    if (b <= 0x7f || b >= 0xe0 || b === 0xc0 || b === 0xc2 || b === 0xc3) return;
    if (b >= 0x80 && b <= 0x8f) return map(b & 0x0f, depth);
    if (b >= 0x90 && b <= 0x9f) return array(b & 0x0f, depth);
    const s = strHeader(b);
    if (s !== undefined) { str(s); return; }
    switch (b) {
      case 0xc4: { const n = be(1); need(n); pos += n; return; }
      case 0xc5: { const n = small(at, be(2), 0xff, "a bin16"); need(n); pos += n; return; }
      case 0xc6: { const n = small(at, be(4), 0xffff, "a bin32"); need(n); pos += n; return; }
      case 0xca:
        if (smallest) throw new Malformed(`byte ${at} starts a float32; the ABI's senders write floats as float64`);
        need(4); pos += 4; return;
      case 0xcb: need(8); pos += 8; return;
      case 0xcc: case 0xcd: case 0xce: case 0xcf: case 0xd0: case 0xd1: case 0xd2: case 0xd3: int(at, b); return;
      case 0xdc: return array(small(at, be(2), 15, "an array16"), depth);
      case 0xdd: return array(small(at, be(4), 0xffff, "an array32"), depth);
      case 0xde: return map(small(at, be(2), 15, "a map16"), depth);
      case 0xdf: return map(small(at, be(4), 0xffff, "a map32"), depth);
      case 0xc1: throw new Malformed(`byte ${at} is 0xc1, which msgpack never uses`);
      default: throw new Malformed(`byte ${at} starts an extension (0x${b.toString(16)}); the ABI uses no extensions or timestamps`);
    }
  };
  const array = (n: number, depth: number): void => {
    if (depth === 2 && limits !== undefined) {
      const key = trail[0] as string;
      const max = Object.hasOwn(limits, key) ? limits[key]! : undefined;
      if (max !== undefined && n > max) throw new TooLong(key, n, max);
    }
    need(n); // every element takes at least one byte
    for (let i = 0; i < n; i++) { trail[depth - 1] = i; value(depth + 1); }
  };
  const map = (n: number, depth: number): void => {
    need(n * 2);
    const seen: string[] = [];
    const seenSet = n > 16 ? new Set<string>() : undefined;
    for (let i = 0; i < n; i++) {
      const at = pos;
      const len = strHeader(u8());
      if (len === undefined) throw new Malformed(`map key at byte ${at} (${pathAt(depth) || "/"}) is not a string; the ABI's map keys are strings`);
      const key = keyOf(str(len));
      if (seenSet ? seenSet.has(key) : seen.includes(key)) throw new Malformed(`map key "${clip(key)}" appears twice at ${pathAt(depth) || "/"}`);
      if (seenSet) seenSet.add(key); else seen.push(key);
      if (RESERVED_KEYS.has(key)) throw new Reserved(`map key "${key}" at ${pathAt(depth) || "/"} is reserved (__proto__, constructor and prototype are refused)`);
      trail[depth - 1] = key;
      value(depth + 1);
    }
  };
  try {
    value(1);
    if (pos !== bytes.length) throw new Malformed(`${bytes.length - pos} bytes follow the value`);
    return { ok: true };
  } catch (err) {
    if (err instanceof Malformed) return { ok: false, malformed: true, message: err.message };
    if (err instanceof Reserved) return { ok: false, malformed: false, message: err.message };
    if (err instanceof TooLong) return { ok: false, malformed: false, message: err.message, tooLong: { key: err.key, size: err.size, max: err.max } };
    throw err;
  }
}

function clip(key: string): string {
  return printableText(key, 65);
}

function escape(key: string): string {
  return clip(key).replace(/~/g, "~0").replace(/\//g, "~1");
}
