/**
 * The consumer's side of a called model's stream: the model's own chunks in order (ids,
 * response metadata with the model name, usage, tool call chunks, content blocks and
 * their indexes), each with the text the chunk hooks let through of it. Text the hooks
 * held back past its chunk goes out in a chunk of its own, in a block of the type and
 * index it came from (so it merges into that block); when the whole answer comes in the last chunk (an after hook that may change it
 * held the text back), the hooked text is mapped back onto the chunks' slots (splitBack).
 */
import { AIMessageChunk } from "@langchain/core/messages";
import type { EmittedChunk } from "../../index.js";
import { ChannelText } from "../shared/channel-text.js";
import { splitBack } from "../shared/split-back.js";
import { chunkWith, contentSlots, reasoningSlots, type Slot } from "./answer-text.js";

type Channel = "content" | "reasoning";
type SlotText = { slot: Slot; text: string };
const slotsOf = (c: AIMessageChunk, channel: Channel): SlotText[] => (channel === "content" ? contentSlots(c) : reasoningSlots(c));
const CHANNELS: readonly Channel[] = ["content", "reasoning"];

export class ChunkReplay {
  private readonly sources: Record<Channel, ChannelText> = { content: new ChannelText(), reasoning: new ChannelText() };
  private scanned = 0;
  /** Source chunks handed to the consumer so far. */
  private given = 0;
  private wrote = false;

  /** `log`: the model's chunks, in order, as they were handed to the host (chunk k is host chunk k). */
  constructor(private readonly log: readonly AIMessageChunk[]) {}

  /** The chunks to give the consumer for one effective chunk the host emitted. */
  write(e: EmittedChunk): AIMessageChunk[] {
    if (e.is_last && !this.wrote) return this.whole(e);
    this.wrote = true;
    this.scan();
    const k = e.chunk_index;
    const texts = new Map<string, string>();
    const own: Record<Channel, string> = { content: "", reasoning: "" };
    for (const c of CHANNELS) {
      const out = c === "content" ? e.delta : e.reasoning_content ?? "";
      if (out === "") continue;
      const pieces = this.sources[c].take(out, k, e.is_last);
      if (pieces.length === 0) own[c] = out;
      for (const p of pieces) texts.set(p.key, p.text);
    }
    const out: AIMessageChunk[] = [];
    // Text released for chunks already given: a chunk of its own, ahead of the rest, in the blocks it came from.
    const late = this.lateChunk(texts, own);
    if (late) out.push(late);
    const until = e.is_last ? this.log.length : Math.min(k + 1, this.log.length);
    for (; this.given < until; this.given++) out.push(this.rewritten(this.given, texts));
    return out;
  }

  private key(j: number, c: Channel, i: number): string {
    return `${j}/${c}/${i}`;
  }

  private scan(): void {
    for (; this.scanned < this.log.length; this.scanned++) {
      const chunk = this.log[this.scanned]!;
      for (const c of CHANNELS) slotsOf(chunk, c).forEach((s, i) => { if (s.text !== "") this.sources[c].add(this.key(this.scanned, c, i), this.scanned, s.text); });
    }
  }

  /** Source chunk `j` with each slot's text as taken (none: held or removed by the hooks). */
  private rewritten(j: number, texts: Map<string, string>): AIMessageChunk {
    const chunk = this.log[j]!;
    const slots = CHANNELS.flatMap((c) => slotsOf(chunk, c).map((s, i) => ({ slot: s.slot, text: s.text === "" ? "" : texts.get(this.key(j, c, i)) ?? "" })));
    const same = CHANNELS.every((c) => slotsOf(chunk, c).every((s, i) => s.text === "" || texts.get(this.key(j, c, i)) === s.text));
    return same ? chunk : chunkWith(chunk, slots);
  }

  /** The text released for chunks already given, and text of a hook's own, as one chunk in the shape of the blocks it came from. */
  private lateChunk(texts: Map<string, string>, own: Record<Channel, string>): AIMessageChunk | undefined {
    let content: string | Record<string, unknown>[] = "";
    const kwargs: Record<string, unknown> = {};
    let any = false;
    const add = (c: Channel, slot: Slot, source: AIMessageChunk, text: string): void => {
      any = true;
      if (slot.kind === "kwargs") kwargs.reasoning_content = String(kwargs.reasoning_content ?? "") + text;
      else if (slot.kind === "string") content = typeof content === "string" ? content + text : [...content, { type: "text", text }];
      else {
        // Only the block's type and merge index: LangChain's concat joins every other string field (a signature) again.
        const from = (source.content as Record<string, unknown>[])[slot.at]!;
        const block = { type: from.type, ...(from.index !== undefined ? { index: from.index } : {}), [slot.field]: text };
        content = typeof content === "string" ? [...(content ? [{ type: "text", text: content }] : []), block] : [...content, block];
      }
    };
    for (const [key, text] of texts) {
      const [j, c, i] = key.split("/") as [string, Channel, string];
      if (Number(j) >= this.given || text === "") continue;
      const source = this.log[Number(j)]!;
      add(c, slotsOf(source, c)[Number(i)]!.slot, source, text);
    }
    if (own.content) add("content", { kind: "string" }, this.log[0]!, own.content);
    if (own.reasoning) add("reasoning", { kind: "kwargs" }, this.log[0]!, own.reasoning);
    return any ? new AIMessageChunk({ content: content as string, additional_kwargs: kwargs }) : undefined;
  }

  /** The whole answer in one chunk: the hooked texts mapped back onto every chunk's slots. */
  private whole(e: EmittedChunk): AIMessageChunk[] {
    const texts = new Map<string, string>();
    const orphan: Record<Channel, string> = { content: "", reasoning: "" };
    for (const c of CHANNELS) {
      const slots = this.log.flatMap((chunk, j) => slotsOf(chunk, c).map((s, i) => ({ key: this.key(j, c, i), text: s.text })));
      const out = c === "content" ? e.delta : e.reasoning_content ?? "";
      if (slots.length === 0) { orphan[c] = out; continue; }
      splitBack(slots.map((s) => s.text), out).forEach((t, n) => texts.set(slots[n]!.key, t));
    }
    const out: AIMessageChunk[] = [];
    for (; this.given < this.log.length; this.given++) {
      const chunk = this.log[this.given]!;
      const j = this.given;
      const slots = CHANNELS.flatMap((c) => slotsOf(chunk, c).map((s, i) => ({ slot: s.slot, text: texts.get(this.key(j, c, i)) ?? s.text })));
      out.push(slots.every((s, n) => s.text === [...slotsOf(chunk, "content"), ...slotsOf(chunk, "reasoning")][n]!.text) ? chunk : chunkWith(chunk, slots));
    }
    if (orphan.content || orphan.reasoning) out.push(new AIMessageChunk({ content: orphan.content, ...(orphan.reasoning ? { additional_kwargs: { reasoning_content: orphan.reasoning } } : {}) }));
    return out;
  }
}
