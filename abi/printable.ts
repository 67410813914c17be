/**
 * A guest's bytes or text made fit to stand in an error message or a log line: valid UTF-8
 * that prints is kept as it is; everything else is escaped (`\x1b` for a byte that is not
 * UTF-8 or a control character, `\u{200e}` for an invisible or unassigned code point, `\\`
 * for the escape character itself), so binary data, terminal escapes and line breaks never
 * reach a log, a terminal or a JSON error as themselves. The result is at most `max`
 * characters, ending in `…` when cut, and an escape is never split. The default holds a
 * 1,024-byte log line or abort message whole even when every byte is escaped.
 */
export const PRINTABLE_MAX = 4 * 1024;

/** Control, format, surrogate, private-use and unassigned code points, and the line and paragraph separators. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u;

const hex = (n: number, width: number): string => n.toString(16).padStart(width, "0");

function escapeChar(ch: string): string {
  if (ch === "\\") return "\\\\";
  if (!HIDDEN.test(ch)) return ch;
  const cp = ch.codePointAt(0)!;
  return cp < 0x100 ? `\\x${hex(cp, 2)}` : `\\u{${hex(cp, 4)}}`;
}

/** Appends pieces while they fit in `max` characters; one that does not fit ends the text with `…`. */
class Bounded {
  text = "";
  full = false;
  constructor(private readonly max: number) {}
  add(piece: string): boolean {
    if (this.text.length + piece.length > this.max - 1) {
      this.text += "…";
      this.full = true;
    } else this.text += piece;
    return !this.full;
  }
}

/** Lowest code point each UTF-8 sequence length may encode (shorter forms are overlong). */
const MIN_CODE_POINT = [0, 0, 0x80, 0x800, 0x10000];

function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead < 0xe0) return 2;
  if (lead >= 0xe0 && lead < 0xf0) return 3;
  if (lead >= 0xf0 && lead < 0xf5) return 4;
  return 0;
}

/** The code point of the UTF-8 sequence at `i`, or -1 when the bytes there are not one. */
function codePointAt(bytes: Uint8Array, i: number, n: number): number {
  if (n === 0 || i + n > bytes.length) return -1;
  if (n === 1) return bytes[i]!;
  let cp = bytes[i]! & (0xff >> (n + 1));
  for (let k = 1; k < n; k++) {
    const c = bytes[i + k]!;
    if ((c & 0xc0) !== 0x80) return -1;
    cp = (cp << 6) | (c & 0x3f);
  }
  return cp < MIN_CODE_POINT[n]! || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff ? -1 : cp;
}

/** A guest's bytes, read as UTF-8, as printable text. */
export function printableBytes(bytes: Uint8Array, max = PRINTABLE_MAX): string {
  const out = new Bounded(max);
  for (let i = 0; i < bytes.length;) {
    const n = sequenceLength(bytes[i]!);
    const cp = codePointAt(bytes, i, n);
    const piece = cp < 0 ? `\\x${hex(bytes[i]!, 2)}` : escapeChar(String.fromCodePoint(cp));
    if (!out.add(piece)) break;
    i += cp < 0 ? 1 : n;
  }
  return out.text;
}

const NEEDS_WORK = /[\\\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u;

/** A guest's text (decoded already, lone surrogates and all) as printable text. */
export function printableText(text: string, max = PRINTABLE_MAX): string {
  if (text.length <= max && !NEEDS_WORK.test(text)) return text;
  const out = new Bounded(max);
  for (const ch of text) if (!out.add(escapeChar(ch))) break;
  return out.text;
}
