// AssemblyScript strings are UTF-16; the ABI speaks UTF-8. Every string crossing the
// boundary goes through here so that lengths are always counted in UTF-8 bytes.

/** UTF-8 length of `s`. Lone surrogates count as the 3-byte U+FFFD they are written as. */
export function utf8Length(s: string): i32 {
  return String.UTF8.byteLength(s);
}

/** Writes `s` as UTF-8 at `dst` (which must hold utf8Length(s) bytes); returns the end. */
export function writeUtf8(s: string, dst: usize): usize {
  return dst + String.UTF8.encodeUnsafe(changetype<usize>(s), s.length, dst, false, String.UTF8.ErrorMode.REPLACE);
}

/**
 * The string encoded by `len` UTF-8 bytes at `ptr`. Payload text is mostly ASCII, which
 * is checked and widened to UTF-16 eight bytes at a time (plain wasm, no SIMD needed);
 * anything else goes through String.UTF8, which replaces invalid sequences with U+FFFD.
 */
export function readUtf8(ptr: usize, len: usize): string {
  let i: usize = 0;
  let seen: u64 = 0;
  for (; i + 8 <= len; i += 8) seen |= load<u64>(ptr + i);
  for (; i < len; i++) seen |= <u64>load<u8>(ptr + i);
  if (seen & 0x8080808080808080) return String.UTF8.decodeUnsafe(ptr, len);
  const out = changetype<string>(__new(len << 1, idof<string>()));
  const dst = changetype<usize>(out);
  i = 0;
  for (; i + 8 <= len; i += 8) {
    const bytes = load<u64>(ptr + i);
    store<u64>(dst + (i << 1), widen(bytes & 0xffffffff));
    store<u64>(dst + (i << 1) + 8, widen(bytes >> 32));
  }
  for (; i < len; i++) store<u16>(dst + (i << 1), <u16>load<u8>(ptr + i));
  return out;
}

/** Four bytes (the low 32 bits) spread into four 16-bit lanes. */
// @ts-ignore: decorator
@inline function widen(x: u64): u64 {
  x = (x | (x << 16)) & 0x0000ffff0000ffff;
  return (x | (x << 8)) & 0x00ff00ff00ff00ff;
}

/** `s` as UTF-8 bytes. */
export function toUtf8(s: string): Uint8Array {
  const out = new Uint8Array(utf8Length(s));
  writeUtf8(s, out.dataStart);
  return out;
}

/** Keeps a message within the host's 1024-byte limit without cutting a character in half. */
export function clipUtf8(s: string, maxBytes: i32): string {
  if (utf8Length(s) <= maxBytes) return s;
  let end = s.length;
  while (end > 0 && String.UTF8.byteLength(s.substring(0, end)) > maxBytes - 3) end--;
  // Never split a surrogate pair.
  if (end > 0 && (s.charCodeAt(end - 1) & 0xfc00) == 0xd800) end--;
  return s.substring(0, end) + "…";
}
