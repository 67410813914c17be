// pii-redact: replaces e-mail addresses, phone numbers and Luhn-valid payment card numbers
// with [email], [phone] and [card], in streamed chunks (model.chat.chunk), in the final
// answer (model.chat.after) and in the model-visible view of a tool result (tool.after).
//
// One linear scan per text, no regex (AssemblyScript has none). At chunk points the
// trailing span that could still grow into a match (the last e-mail-ish token, or a run of
// number groups) is held back and re-scanned with the next chunk, so a value split across
// chunks is never emitted in pieces.
import { registerHook, Outcome, Value, Request } from "@sluice/guest-sdk";
export * from "@sluice/guest-sdk/exports";

/** Longest tail held back at a chunk (UTF-16 units). An e-mail address is at most 254 characters. */
const MAX_HOLD: i32 = 256;
/** A number candidate stops growing after this many digit groups / digits. */
const MAX_GROUPS: i32 = 24;
const MAX_DIGITS: i32 = 40;

const EMAIL = "[email]";
const PHONE = "[phone]";
const CARD = "[card]";

// Which kinds are enabled, and what the last scan found (a fresh instance per call: globals are per invocation).
let wantEmail = true;
let wantPhone = true;
let wantCard = true;
let foundEmails: i32 = 0;
let foundPhones: i32 = 0;
let foundCards: i32 = 0;

// Digit groups of the current number candidate (static, allocation-free).
const gStart = new StaticArray<i32>(MAX_GROUPS);
const gEnd = new StaticArray<i32>(MAX_GROUPS);
const gSep = new StaticArray<i32>(MAX_GROUPS); // separator before group i (0 for the first)
const gParen = new StaticArray<bool>(MAX_GROUPS);
let gCount: i32 = 0;
let gPlus = false;
let gEndPos: i32 = 0; // end of the candidate (after a closing paren)

// @ts-ignore: decorator
@inline function ch(s: string, i: i32): i32 {
  return <i32>load<u16>(changetype<usize>(s) + (<usize>i << 1));
}
// @ts-ignore: decorator
@inline function isDigit(c: i32): bool { return c >= 48 && c <= 57; }
// @ts-ignore: decorator
@inline function isAlpha(c: i32): bool { return (c | 32) >= 97 && (c | 32) <= 122; }
// @ts-ignore: decorator
@inline function isAlnum(c: i32): bool { return isDigit(c) || isAlpha(c); }
/** Characters of an e-mail local part (the common subset of RFC 5322 atext, plus dots). */
// @ts-ignore: decorator
@inline function isLocal(c: i32): bool { return isAlnum(c) || c == 46 || c == 95 || c == 37 || c == 43 || c == 45; }
/** Characters of a domain name. */
// @ts-ignore: decorator
@inline function isDomain(c: i32): bool { return isAlnum(c) || c == 46 || c == 45; }

/** End of a valid e-mail whose '@' is at `at`, or -1. Sets `emailStart`. */
let emailStart: i32 = 0;
function matchEmail(s: string, at: i32, floor: i32): i32 {
  const n = s.length;
  let left = at;
  while (left > floor && isLocal(ch(s, left - 1))) left--;
  while (left < at && ch(s, left) == 46) left++; // a local part does not start with a dot
  if (left == at) return -1;
  let right = at + 1;
  while (right < n && isDomain(ch(s, right))) right++;
  while (right > at + 1 && (ch(s, right - 1) == 46 || ch(s, right - 1) == 45)) right--;
  // The domain: at least one dot, labels not empty, the last label 2+ letters.
  const first = ch(s, at + 1);
  if (right <= at + 1 || first == 46 || first == 45) return -1;
  let lastDot = -1;
  for (let i = at + 1; i < right; i++) {
    if (ch(s, i) == 46) {
      if (i == lastDot + 1 && lastDot >= 0) return -1; // ".."
      lastDot = i;
    }
  }
  if (lastDot < 0 || right - lastDot - 1 < 2) return -1;
  for (let i = lastDot + 1; i < right; i++) if (!isAlpha(ch(s, i))) return -1;
  emailStart = left;
  return right;
}

/**
 * Reads the digit groups of a number candidate starting at `i` into the g* arrays.
 * Groups: digits, optionally in parens; separated by one of " -." (or ") " / " (").
 * Every group after the first needs 2+ digits (so "1 2 3" is not one number).
 */
function readGroups(s: string, i: i32): void {
  const n = s.length;
  let pos = i;
  gCount = 0;
  gPlus = false;
  if (ch(s, pos) == 43) { gPlus = true; pos++; }
  let digits = 0;
  let sep = 0;
  gEndPos = pos;
  while (gCount < MAX_GROUPS && digits < MAX_DIGITS) {
    let p = pos;
    let paren = false;
    if (p < n && ch(s, p) == 40) { paren = true; p++; }
    const start = p;
    while (p < n && isDigit(ch(s, p))) p++;
    const len = p - start;
    if (len == 0 || (gCount > 0 && len < 2)) break;
    if (paren) { if (p < n && ch(s, p) == 41) p++; else break; }
    unchecked(gStart[gCount] = paren ? start - 1 : start);
    unchecked(gEnd[gCount] = p);
    unchecked(gSep[gCount] = sep);
    unchecked(gParen[gCount] = paren);
    gCount++;
    digits += len;
    gEndPos = p;
    // A separator, then the next group must begin (a digit, or "(" and a digit).
    if (p >= n) break;
    const c = ch(s, p);
    if (c != 32 && c != 45 && c != 46) {
      if (paren && isDigit(c)) { sep = 41; pos = p; continue; }
      break;
    }
    sep = c;
    let q = p + 1;
    if (q < n && ch(s, q) == 40) { if (q + 1 < n && isDigit(ch(s, q + 1))) { pos = q; continue; } break; }
    if (q < n && isDigit(ch(s, q))) { pos = q; continue; }
    break;
  }
}

function digitsIn(a: i32, b: i32): i32 {
  let d = 0;
  for (let g = a; g <= b; g++) {
    d += unchecked(gEnd[g]) - unchecked(gStart[g]) - (unchecked(gParen[g]) ? 2 : 0);
  }
  return d;
}

function luhn(s: string, from: i32, to: i32): bool {
  let sum = 0;
  let dbl = false;
  for (let i = to - 1; i >= from; i--) {
    const c = ch(s, i);
    if (!isDigit(c)) continue;
    let d = c - 48;
    if (dbl) { d *= 2; if (d > 9) d -= 9; }
    sum += d;
    dbl = !dbl;
  }
  return sum % 10 == 0;
}

/** Cards: 13–19 digits, Luhn-valid, groups joined by spaces or dashes only, no parens or "+". */
function cardEnd(s: string, a: i32): i32 {
  if (a == 0 && gPlus) return -1;
  let best = -1;
  let d = 0;
  for (let b = a; b < gCount; b++) {
    if (unchecked(gParen[b])) break;
    if (b > a) { const sp = unchecked(gSep[b]); if (sp != 32 && sp != 45) break; }
    d += unchecked(gEnd[b]) - unchecked(gStart[b]);
    if (d > 19) break;
    if (d >= 13 && luhn(s, unchecked(gStart[a]), unchecked(gEnd[b]))) best = b;
  }
  return best;
}

/** Phones: the whole rest of the candidate, 10–15 digits (8–15 after a "+", 10–11 for one bare group); not an ISO date, IP address or decimal. */
function isPhone(s: string, a: i32): bool {
  const plus = a == 0 && gPlus;
  const d = digitsIn(a, gCount - 1);
  const minDigits = plus ? 8 : 10;
  // A bare run of digits is a phone only at national length (10–11, e.g. 5558675309):
  // longer bare runs are ids, and 12–19 digit ones may be (invalid) card numbers.
  const maxDigits = !plus && a == gCount - 1 ? 11 : 15;
  if (d > maxDigits || d < minDigits) return false;
  let dots = 0;
  for (let g = a; g < gCount; g++) {
    const len = unchecked(gEnd[g]) - unchecked(gStart[g]);
    if (g > a && unchecked(gSep[g]) == 46) {
      dots++;
      const prev = unchecked(gEnd[g - 1]) - unchecked(gStart[g - 1]);
      if (len > 4 || prev > 4) return false; // 3.14159265358979
    }
  }
  if (dots == 3 && gCount - a == 4) return false; // 192.168.100.200
  if (gCount - a >= 3 && unchecked(gSep[a + 1]) == 45 && unchecked(gEnd[a]) - unchecked(gStart[a]) == 4
    && unchecked(gEnd[a + 1]) - unchecked(gStart[a + 1]) == 2) return false; // 2024-01-15 10
  return true;
}

/**
 * Redacts `s[0..end)`; returns the redacted text (the same string when nothing matched).
 * Linear: each character is visited a bounded number of times.
 */
function redact(s: string, end: i32): string {
  let out = "";
  let copied = 0;
  let changed = false;
  let i = 0;
  while (i < end) {
    const c = ch(s, i);
    if (c == 64) { // '@'
      if (wantEmail) {
        const e = matchEmail(s, i, copied);
        if (e > 0 && e <= end) {
          out += s.substring(copied, emailStart) + EMAIL;
          copied = e; i = e; changed = true; foundEmails++;
          continue;
        }
      }
      i++;
      continue;
    }
    const startsNumber = isDigit(c) || ((c == 43 || c == 40) && i + 1 < end && isDigit(ch(s, i + 1)));
    if (startsNumber && (wantCard || wantPhone) && (i == 0 || !isAlnum(ch(s, i - 1)))) {
      readGroups(s, i);
      const after = gEndPos < end ? ch(s, gEndPos) : 0;
      const glued = isAlpha(after) || after == 64 || after == 95; // part of a word or an e-mail
      if (!glued && gEndPos <= end) {
        let a = 0;
        let phoneOk = true;
        while (a < gCount) {
          const b = wantCard ? cardEnd(s, a) : -1;
          if (b >= 0) {
            out += s.substring(copied, unchecked(gStart[a])) + CARD;
            copied = unchecked(gEnd[b]); changed = true; foundCards++;
            a = b + 1; phoneOk = true;
            continue;
          }
          if (phoneOk && wantPhone && isPhone(s, a)) {
            const from = a == 0 && gPlus ? i : unchecked(gStart[a]);
            out += s.substring(copied, from) + PHONE;
            copied = unchecked(gEnd[gCount - 1]); changed = true; foundPhones++;
            break;
          }
          phoneOk = false;
          a++;
        }
      }
      i = gEndPos > i ? gEndPos : i + 1;
      continue;
    }
    i++;
  }
  if (!changed) return end == s.length ? s : s.substring(0, end);
  return out + s.substring(copied, end);
}

/**
 * Where the possibly-incomplete trailing span of a chunk begins: the last run of
 * e-mail/number characters (letters, digits, . _ % + - @ ( )), with single spaces kept
 * when they sit between digit groups. At most MAX_HOLD units, never splitting a pair.
 */
function tailStart(s: string): i32 {
  const n = s.length;
  let k = n;
  while (k > 0) {
    const c = ch(s, k - 1);
    if (isLocal(c) || c == 64 || c == 40 || c == 41) { k--; continue; }
    if (c == 32 && k - 1 > 0) {
      const before = ch(s, k - 2);
      const next = k < n ? ch(s, k) : -1;
      if ((isDigit(before) || before == 41) && (next == -1 || isDigit(next) || next == 40 || next == 43)) { k--; continue; }
    }
    break;
  }
  while (k < n && ch(s, k) == 32) k++;
  if (n - k > MAX_HOLD) {
    k = n - MAX_HOLD;
    if ((ch(s, k) & 0xfc00) == 0xdc00) k++;
  }
  return k;
}

function readKinds(config: Value): void {
  const kinds = config.get("kinds");
  if (!kinds.isArray()) return;
  wantEmail = false; wantPhone = false; wantCard = false;
  for (let i = 0; i < kinds.length; i++) {
    const k = kinds.at(i).asStringOr("");
    if (k == "email") wantEmail = true;
    else if (k == "phone") wantPhone = true;
    else if (k == "card") wantCard = true;
  }
}

function counts(o: Outcome): Outcome {
  if (foundEmails > 0) o.annotate("pii.emails", Value.int(foundEmails));
  if (foundPhones > 0) o.annotate("pii.phones", Value.int(foundPhones));
  if (foundCards > 0) o.annotate("pii.cards", Value.int(foundCards));
  return o;
}

const BLOCK_CODE = "pii.card";
const BLOCK_REASON = "a payment card number was found and the binding blocks on cards";

function onChunk(req: Request, blockOnCard: bool): Outcome {
  const delta = req.payload.get("delta").asStringOr("");
  const last = req.payload.get("is_last").asBoolOr(false);
  const cut = last ? delta.length : tailStart(delta);
  const emitted = redact(delta, cut);
  if (blockOnCard && foundCards > 0) return counts(Outcome.block(BLOCK_CODE, BLOCK_REASON));
  const hold = cut < delta.length ? delta.substring(cut) : "";
  const o = foundEmails + foundPhones + foundCards > 0 ? counts(Outcome.redact(emitted)) : Outcome.continue();
  return hold.length > 0 ? o.hold(hold) : o;
}

/** A copy of `v` with every string redacted (map keys kept), or null when nothing changed. */
function redactValue(v: Value): Value | null {
  if (v.isString()) {
    const s = v.asString();
    const r = redact(s, s.length);
    return r == s ? null : Value.str(r);
  }
  if (v.isArray()) {
    let out: Value | null = null;
    const items = v.values();
    for (let i = 0; i < items.length; i++) {
      const r = redactValue(items[i]);
      if (r != null && out == null) { out = Value.arr(); for (let j = 0; j < i; j++) out.push(items[j]); }
      if (out != null) out.push(r != null ? r : items[i]);
    }
    return out;
  }
  if (v.isMap()) {
    let out: Value | null = null;
    const keys = v.keys();
    const items = v.values();
    for (let i = 0; i < items.length; i++) {
      const r = redactValue(items[i]);
      if (r != null && out == null) { out = Value.map(); for (let j = 0; j < i; j++) out.set(keys[j], items[j]); }
      if (out != null) out.set(keys[i], r != null ? r : items[i]);
    }
    return out;
  }
  return null;
}

registerHook((req) => {
  readKinds(req.config);
  const blockOnCard = req.config.get("block_on_card").asBoolOr(false);
  if (req.point == "model.chat.chunk") return onChunk(req, blockOnCard);

  if (req.point == "model.chat.after") {
    const content = req.payload.get("content");
    if (!content.isString()) return Outcome.continue();
    const s = content.asString();
    const r = redact(s, s.length);
    if (blockOnCard && foundCards > 0) return counts(Outcome.block(BLOCK_CODE, BLOCK_REASON));
    return r == s ? Outcome.continue() : counts(Outcome.redact(r));
  }

  if (req.point == "tool.after") {
    const view = req.payload.get("view");
    if (view.isString()) {
      const s = view.asString();
      const r = redact(s, s.length);
      if (blockOnCard && foundCards > 0) return counts(Outcome.block(BLOCK_CODE, BLOCK_REASON));
      return r == s ? Outcome.continue() : counts(Outcome.redact(r));
    }
    const r = redactValue(view);
    if (blockOnCard && foundCards > 0) return counts(Outcome.block(BLOCK_CODE, BLOCK_REASON));
    return r == null ? Outcome.continue() : counts(Outcome.patchOutput().replace("/view", r));
  }
  return Outcome.continue();
});
