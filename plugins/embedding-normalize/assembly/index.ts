// embedding-normalize: normalises texts before they are embedded, keeping their count and
// order (one patch operation per changed text). Per text:
//   - zero-width space, word joiner, BOM and soft hyphen (U+200B, U+2060, U+FEFF, U+00AD)
//     are removed (ZWJ/ZWNJ are kept: they carry meaning in emoji and some scripts);
//   - every Unicode space or line break (White_Space: TAB..CR, U+0085, NBSP, U+1680,
//     U+2000–U+200A, U+2028, U+2029, U+202F, U+205F, U+3000) becomes a space, runs of
//     spaces become one space, and the text is trimmed;
//   - fullwidth ASCII (U+FF01–U+FF5E) becomes ASCII (an NFKC rule for that block only);
//   - canonical composition, NFC-like: a character followed by a combining character
//     is replaced by their primary composite (table of nfc-table.ts, Unicode 14) and
//     Hangul jamo are composed into syllables. Not done: canonical reordering of several
//     combining marks, and anything outside the BMP; text that is already NFC is unchanged.
import { registerHook, Outcome, Value, EmbeddingBefore } from "@sluice/guest-sdk";
import { KEYS, VALUES } from "./nfc-table";
export * from "@sluice/guest-sdk/exports";

function isSpaceLike(c: i32): bool {
  return c == 32 || (c >= 9 && c <= 13) || c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a)
    || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

function isRemoved(c: i32): bool {
  return c == 0x200b || c == 0x2060 || c == 0xfeff || c == 0xad;
}

/** The primary composite of `a` followed by `b`, or -1. */
function compose(a: i32, b: i32): i32 {
  // Hangul: L + V -> LV, LV + T -> LVT.
  if (a >= 0x1100 && a <= 0x1112 && b >= 0x1161 && b <= 0x1175) return 0xac00 + ((a - 0x1100) * 21 + (b - 0x1161)) * 28;
  if (a >= 0xac00 && a <= 0xd7a3 && (a - 0xac00) % 28 == 0 && b >= 0x11a8 && b <= 0x11c2) return a + (b - 0x11a7);
  if (b < 0x300) return -1; // every second half of a BMP composite is at or above U+0300
  const key = (<u32>a << 16) | <u32>b;
  let lo = 0;
  let hi = KEYS.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const k = unchecked(KEYS[mid]);
    if (k == key) return <i32>unchecked(VALUES[mid]);
    if (k < key) lo = mid + 1; else hi = mid - 1;
  }
  return -1;
}

function normalize(s: string): string {
  const n = s.length;
  const buf = new StaticArray<u16>(n);
  let w = 0;
  let pendingSpace = false;
  for (let i = 0; i < n; i++) {
    let c = <i32>s.charCodeAt(i);
    if (isRemoved(c)) continue;
    if (isSpaceLike(c)) { if (w > 0) pendingSpace = true; continue; }
    if (c >= 0xff01 && c <= 0xff5e) c -= 0xfee0;
    if (pendingSpace) { unchecked(buf[w++] = 32); pendingSpace = false; }
    else if (w > 0) {
      const prev = <i32>unchecked(buf[w - 1]);
      const composed = compose(prev, c);
      if (composed >= 0) { unchecked(buf[w - 1] = <u16>composed); continue; }
    }
    unchecked(buf[w++] = <u16>c);
  }
  if (w == n) {
    // Same length: unchanged unless a character was mapped (fullwidth, or a space kind).
    let same = true;
    for (let i = 0; i < n; i++) if (<i32>unchecked(buf[i]) != <i32>s.charCodeAt(i)) { same = false; break; }
    if (same) return s;
  }
  return String.UTF16.decodeUnsafe(changetype<usize>(buf), <usize>w << 1);
}

registerHook((req) => {
  const view = EmbeddingBefore.of(req);
  const texts = view.texts;
  let patch: Outcome | null = null;
  let changed = 0;
  for (let i = 0; i < texts.length; i++) {
    const t = texts.at(i);
    if (!t.isString()) continue;
    const s = t.asString();
    const r = normalize(s);
    if (r == s) continue;
    if (patch == null) patch = Outcome.patchInput();
    patch.replace("/texts/" + i.toString(), Value.str(r));
    changed++;
  }
  if (patch == null) return Outcome.continue();
  return patch.annotate("embedding_normalize.changed", Value.int(changed));
});
