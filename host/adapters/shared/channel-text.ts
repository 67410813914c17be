/**
 * One text channel of a streamed answer as the model sent it, piece by piece, each piece
 * named by where it came from (a part, a content block of a chunk). The chunk hooks let
 * the text through later than it came (a hold) or changed (a redaction); `take` tells
 * which of the model's pieces an emitted text stands for, so each adapter writes it back
 * where it came from, with that piece's metadata.
 */
import { splitBack } from "./split-back.js";

/** Held text longer than this is taken as the chunk's own (pii-redact holds at most 256 characters). */
const MAX_HOLD = 4096;

interface Segment { key: string; at: number; from: number; to: number }

/**
 * How much of `text` between `pos` and `upTo` (the channel's source up to the chunk) the
 * hooks still hold after emitting `out`: the cut that leaves the source ending most like
 * `out` ends (the text after a redaction is the source's own), the smallest on a tie.
 */
function heldOf(text: string, pos: number, upTo: number, out: string): number {
  let best = 0;
  let bestMatch = -1;
  for (let h = 0; h <= Math.min(upTo - pos, MAX_HOLD); h++) {
    const end = upTo - h;
    let m = 0;
    while (m < out.length && m < end - pos && text[end - 1 - m] === out[out.length - 1 - m]) m++;
    if (m > bestMatch) { best = h; bestMatch = m; }
    if (m === out.length) break;
  }
  return best;
}

export class ChannelText {
  private text = "";
  private readonly segments: Segment[] = [];
  private readonly ends = new Map<string, number>();
  /** How far the consumer has been given the source. */
  private pos = 0;
  /** The first segment not wholly given, and the segments sent with chunks seen so far (chunks come in order: each scan starts where the last ended). */
  private first = 0;
  private sent = 0;

  /** The model's piece `text` of `key`, sent with host chunk `at`. */
  add(key: string, at: number, text: string): void {
    this.segments.push({ key, at, from: this.text.length, to: this.text.length + text.length });
    this.text += text;
    this.ends.set(key, this.text.length);
  }

  /** Text of `key` the consumer has not been given yet (held by a hook, or not emitted so far). */
  waiting(key: string): boolean {
    const end = this.ends.get(key);
    return end !== undefined && this.pos < end;
  }

  /**
   * The model's pieces the hooks' text `out`, emitted at chunk `at`, stands for: the
   * source from where the consumer is up to that chunk, less what the hooks still hold
   * (nothing at the last chunk), with `out` mapped onto it (splitBack). Empty when no
   * source is left: `out` is a hook's own text.
   */
  take(out: string, at: number, isLast: boolean): { key: string; text: string }[] {
    while (this.sent < this.segments.length && this.segments[this.sent]!.at <= at) this.sent++;
    const upTo = Math.max(this.pos, this.sent > 0 ? this.segments[this.sent - 1]!.to : 0);
    const q = upTo - (isLast ? 0 : heldOf(this.text, this.pos, upTo, out));
    const window: { key: string; text: string }[] = [];
    for (let i = this.first; i < this.segments.length; i++) {
      const g = this.segments[i]!;
      if (g.from >= q) break;
      if (g.to <= this.pos) continue;
      const piece = this.text.slice(Math.max(g.from, this.pos), Math.min(g.to, q));
      if (window.at(-1)?.key === g.key) window.at(-1)!.text += piece;
      else window.push({ key: g.key, text: piece });
    }
    this.pos = Math.max(q, this.pos);
    while (this.first < this.segments.length && this.segments[this.first]!.to <= this.pos) this.first++;
    if (window.length === 0) return [];
    return splitBack(window.map((w) => w.text), out).map((text, i) => ({ key: window[i]!.key, text }));
  }
}
