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
