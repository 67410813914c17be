/**
 * The upstream's streamed Gemini responses relayed in order, each once the chunk hooks have
 * passed it (its `chunk_index` says how far they have got). A response's text parts carry
 * what the hooks let through: text held back and released later goes into the latest
 * pending response that had text (or, when none is pending, into the response being
 * emitted); a held response left with nothing goes out without its text parts, or not at all
 * when nothing else was in it. The response that ends the candidate waits while the hooks
 * hold text, so released text is never written after the answer's end. Thought parts
 * likewise; a thoughtSignature on a text part is never dropped; every other part as it came.
 */
import type { EmittedChunk } from "../boundary/stream.js";
import type { GeminiFacts } from "./gemini-upstream.js";
import { partsOf } from "./gemini-upstream.js";
import { sseEvent } from "./sse.js";
import { withKeys } from "../objects/with-keys.js";

type Json = Record<string, any>;
type Kind = "text" | "thought";

const kindOf = (p: Json): Kind | null => (typeof p?.text !== "string" ? null : p.thought === true ? "thought" : "text");

/**
 * A response with its text parts of `kind` replaced by one holding `text` (none when it is
 * empty). A part that carries a thoughtSignature stays, its text emptied, when its text goes
 * elsewhere: the signature is the upstream's, and Gemini itself sends it on an empty part.
 */
function withText(json: Json, kind: Kind, text: string): Json {
  const parts = partsOf(json);
  const out: Json[] = [];
  let placed = false;
  for (const p of parts) {
    if (kindOf(p) !== kind) { out.push(p); continue; }
    if (!placed && text !== "") out.push(withKeys(p, { text }));
    else if (p.thoughtSignature !== undefined) out.push(withKeys(p, { text: "" }));
    placed = true;
  }
  if (!placed && text !== "") out.unshift(kind === "thought" ? { text, thought: true } : { text });
  const [first, ...rest] = json.candidates ?? [{}];
  return withKeys(json, { candidates: [withKeys(first ?? {}, { content: { role: "model", ...(first?.content ?? {}), parts: out } }), ...rest] });
}

function carries(json: Json): boolean {
  return partsOf(json).length > 0 || json.candidates?.[0]?.finishReason != null || json.usageMetadata != null;
}

const CHANNEL_OF: Readonly<Record<Kind, "content" | "reasoning">> = { text: "content", thought: "reasoning" };

export class GeminiRelay {
  private cursor = 0;
  /** Released text with no pending response to carry it yet. */
  private readonly carry: Record<Kind, string> = { text: "", thought: "" };

  constructor(private readonly facts: GeminiFacts) {}

  frames(e: EmittedChunk, whole?: Json): string {
    const chunks = this.facts.chunks;
    // A short-circuit answer: the host's own response.
    if (chunks.length === 0) return whole ? sseEvent(whole) : "";
    const end = this.holdEnd(e, e.is_last ? chunks.length : Math.min(e.chunk_index + 1, chunks.length));
    const text: Record<Kind, string> = { text: this.carry.text + e.delta, thought: this.carry.thought + (e.reasoning_content ?? "") };
    this.carry.text = "";
    this.carry.thought = "";
    const target: Record<Kind, number> = { text: end - 1, thought: end - 1 };
    for (const kind of ["text", "thought"] as const) {
      for (let k = end - 1; k >= this.cursor; k--) if (partsOf(chunks[k]!).some((p) => kindOf(p) === kind)) { target[kind] = k; break; }
      if (end === this.cursor) { this.carry[kind] = text[kind]; text[kind] = ""; }
    }
    let out = "";
    for (; this.cursor < end; this.cursor++) {
      const k = this.cursor;
      let json = chunks[k]!;
      let changed = false;
      for (const kind of ["text", "thought"] as const) {
        const now = target[kind] === k ? text[kind] : "";
        const was = partsOf(json).filter((p) => kindOf(p) === kind).map((p) => p.text).join("");
        if (now === was) continue;
        json = withText(json, kind, now);
        changed = true;
      }
      if (!changed) out += sseEvent(chunks[k]);
      else if (carries(json)) out += sseEvent(json);
    }
    // Nothing left to carry it (no response after the hold): a response of its own, so no released text is lost.
    if (e.is_last) {
      for (const kind of ["text", "thought"] as const) {
        if (this.carry[kind] === "") continue;
        out += sseEvent(withText({ candidates: [{ content: { role: "model", parts: [] }, index: 0 }] }, kind, this.carry[kind]));
        this.carry[kind] = "";
      }
    }
    return out;
  }

  /**
   * Where this chunk's responses stop: before the response that ends the candidate
   * (`finishReason`) while the hooks hold text of it, so the held text goes out in that
   * response when they release it, before the client takes the answer as finished.
   */
  private holdEnd(e: EmittedChunk, end: number): number {
    if (!e.holding?.length) return end;
    const holding = (["text", "thought"] as const).some((kind) => e.holding!.includes(CHANNEL_OF[kind]));
    if (!holding) return end;
    for (let k = this.cursor; k < end; k++) if (this.facts.chunks[k]!.candidates?.[0]?.finishReason != null) return k;
    return end;
  }
}
