/**
 * The upstream's Anthropic events relayed to the client in order, each only once the chunk
 * hooks have passed it. Every upstream event was one chunk of the host's stream, so an
 * emitted chunk's `chunk_index` says how far the hooks have got: the events before it go
 * out, then the event itself. An event that carries no text goes out as it came, byte for
 * byte (signatures, redacted thinking, tool input, stop reason, usage, pings). A text event
 * carries what the hooks let through: unchanged text keeps the upstream's bytes; text a hook
 * held back and released later is written into the latest pending text event of its channel
 * (a held event with nothing released is dropped, its text goes out with a later one); with
 * no such event left, into its open block just before it closes (a text block does not close
 * while the hooks hold text of it: the events from its end on wait for the release); when
 * every block of its kind has closed, it goes out in a text block of its own. When the
 * stream was held for an after hook, the one emitted chunk carries the whole answer, and it
 * lands in the last text block. A short-circuit answer (no upstream events) is written as
 * the events of a message of its own.
 */
import type { ChatResponse } from "../boundary/chat.js";
import type { EmittedChunk } from "../boundary/stream.js";
import type { AnthropicFacts, RawEvent, TextChannel } from "./anthropic-upstream.js";
import { ownMessageId, stopReasonOf } from "./anthropic-response.js";
import { usageView } from "../boundary/chat.js";
import { withKeys } from "../objects/with-keys.js";

type Json = Record<string, any>;

const BLOCK_OF: Readonly<Record<TextChannel, string>> = { content: "text", reasoning: "thinking" };
const CHANNEL_OF: ReadonlyMap<string | undefined, TextChannel> = new Map([["text", "content"], ["thinking", "reasoning"]]);

export function namedEvent(type: string, data: string): string {
  return `event: ${type}\ndata: ${data}\n\n`;
}

function event(json: Json): string {
  return namedEvent(String(json.type), JSON.stringify(json));
}

export class AnthropicRelay {
  private cursor = 0;
  /** Client block index of each upstream block index (they differ once a block of the gateway's own is added). */
  private readonly index = new Map<number, number>();
  private nextIndex = 0;
  /** The block the client has open, by its client index, and its type. */
  private open: { index: number; type: string } | undefined;
  /** Released text with no pending event to carry it, waiting for a point where a block may start. */
  private readonly carry: Record<TextChannel, string> = { content: "", reasoning: "" };
  private synthetic: { id: string; text: boolean } | undefined;

  constructor(private readonly facts: AnthropicFacts, private readonly model: string) {}

  /** The frames for one emitted chunk. */
  frames(e: EmittedChunk): string {
    const events = this.facts.events;
    if (events.length === 0 || this.synthetic) return this.own(e);
    const end = this.blockEnd(e, e.is_last ? events.length : Math.min(e.chunk_index + 1, events.length));
    const text: Record<TextChannel, string> = { content: e.delta, reasoning: e.reasoning_content ?? "" };
    // Where each channel's released text goes: the latest pending event carrying text of it.
    const target: Partial<Record<TextChannel, number>> = {};
    for (const channel of ["content", "reasoning"] as const) {
      if (text[channel] === "") continue;
      for (let k = end - 1; k >= this.cursor; k--) if (events[k]!.channel === channel) { target[channel] = k; break; }
      if (target[channel] === undefined) { this.carry[channel] += text[channel]; text[channel] = ""; }
    }
    let out = "";
    for (; this.cursor < end; this.cursor++) {
      const k = this.cursor;
      const ev = events[k]!;
      if (ev.type === "content_block_stop") out += this.intoOpenBlock();
      if (this.startsAt(ev)) out += this.flushCarry();
      if (ev.channel) {
        const t = target[ev.channel] === k ? text[ev.channel] : "";
        // A block's start always goes out (later events name its index), with the text released for it.
        if (t === "" && ev.type !== "content_block_start") continue;
        out += t === ev.text ? this.raw(ev) : this.withText(ev, t);
        continue;
      }
      out += this.raw(ev);
    }
    if (e.is_last) out += this.flushCarry();
    return out;
  }

  /**
   * Where this chunk's events stop: before the end of an open text (or thinking) block whose
   * channel the hooks still hold text of, so that text goes out inside its own block when
   * they release it, not in a block of its own after the blocks that followed.
   */
  private blockEnd(e: EmittedChunk, end: number): number {
    if (!e.holding?.length) return end;
    const events = this.facts.events;
    let open = this.open?.type;
    for (let k = this.cursor; k < end; k++) {
      const ev = events[k]!;
      if (ev.type === "content_block_start") open = String(ev.json.content_block?.type);
      else if (ev.type === "content_block_stop") {
        const channel = CHANNEL_OF.get(open);
        if (channel && e.holding.includes(channel)) return k;
        open = undefined;
      }
    }
    return end;
  }

  /** Released text waiting for a place, written into the open block of its kind just before it closes. */
  private intoOpenBlock(): string {
    const channel = CHANNEL_OF.get(this.open?.type);
    if (!channel || this.carry[channel] === "") return "";
    const field = channel === "content" ? "text" : "thinking";
    const out = event({ type: "content_block_delta", index: this.open!.index, delta: { type: `${field}_delta`, [field]: this.carry[channel] } });
    this.carry[channel] = "";
    return out;
  }

  /** A point where no block is open and a block of the gateway's own may start. */
  private startsAt(ev: RawEvent): boolean {
    return this.open === undefined && (ev.type === "content_block_start" || ev.type === "message_delta" || ev.type === "message_stop");
  }

  private flushCarry(): string {
    let out = "";
    for (const channel of ["content", "reasoning"] as const) {
      if (this.carry[channel] === "" || this.open !== undefined) continue;
      const index = this.nextIndex++;
      const type = BLOCK_OF[channel];
      const field = channel === "content" ? "text" : "thinking";
      out += event({ type: "content_block_start", index, content_block: channel === "content" ? { type, text: "" } : { type, thinking: "", signature: "" } });
      out += event({ type: "content_block_delta", index, delta: { type: `${field}_delta`, [field]: this.carry[channel] } });
      out += event({ type: "content_block_stop", index });
      this.carry[channel] = "";
    }
    return out;
  }

  /** An event as it came, its block renumbered only when the gateway added a block before it. */
  private raw(ev: RawEvent): string {
    const json = ev.json;
    if (typeof json.index !== "number") return namedEvent(ev.type, ev.data);
    if (ev.type === "content_block_start") this.index.set(json.index, this.nextIndex++);
    const index = this.index.get(json.index) ?? json.index;
    if (ev.type === "content_block_start") this.open = { index, type: String(json.content_block?.type) };
    if (ev.type === "content_block_stop" && this.open?.index === index) this.open = undefined;
    return index === json.index ? namedEvent(ev.type, ev.data) : event(withKeys(json, { index }));
  }

  private withText(ev: RawEvent, text: string): string {
    const json = ev.json;
    const index = typeof json.index === "number" ? (this.index.get(json.index) ?? json.index) : json.index;
    if (ev.type === "content_block_start") {
      this.index.set(json.index, this.nextIndex);
      const field = ev.channel === "content" ? "text" : "thinking";
      const out = event(withKeys(json, { index: this.nextIndex, content_block: withKeys(json.content_block ?? {}, { [field]: text }) }));
      this.open = { index: this.nextIndex++, type: String(json.content_block?.type) };
      return out;
    }
    const field = ev.channel === "content" ? "text" : "thinking";
    return event(withKeys(json, { index, delta: withKeys(json.delta ?? {}, { [field]: text }) }));
  }

  /** A short-circuit answer's own message: its text as one text block; the rest at {@link finish}. */
  private own(e: EmittedChunk): string {
    let out = "";
    if (!this.synthetic) {
      this.synthetic = { id: ownMessageId(), text: false };
      out += event({ type: "message_start", message: { id: this.synthetic.id, type: "message", role: "assistant", model: this.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } } });
    }
    if (e.delta !== "") {
      if (!this.synthetic.text) { out += event({ type: "content_block_start", index: this.nextIndex, content_block: { type: "text", text: "" } }); this.synthetic.text = true; }
      out += event({ type: "content_block_delta", index: this.nextIndex, delta: { type: "text_delta", text: e.delta } });
    }
    return out;
  }

  /** What ends a short-circuit answer's message once the call has settled; nothing for a relayed stream. */
  finish(output: ChatResponse): string {
    if (!this.synthetic) return "";
    let out = "";
    if (this.synthetic.text) out += event({ type: "content_block_stop", index: this.nextIndex++ });
    for (const c of output.tool_calls) {
      const index = this.nextIndex++;
      out += event({ type: "content_block_start", index, content_block: { type: "tool_use", id: c.id, name: c.function.name, input: {} } });
      out += event({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: c.function.arguments } });
      out += event({ type: "content_block_stop", index });
    }
    const usage = usageView(output.usage);
    out += event({ type: "message_delta", delta: { stop_reason: stopReasonOf(output.finish_reason), stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
    out += event({ type: "message_stop" });
    return out;
  }
}
