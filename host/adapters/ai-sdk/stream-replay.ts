/**
 * The consumer's side of a called model's stream: the model's own parts replayed in their
 * order (ids, provider metadata, sources, tool parts, finish), with each text and
 * reasoning delta carrying what the chunk hooks let through of it. Text the hooks held
 * back goes out with the chunk that releases it, in the part of its channel open there
 * (that part's end waits for it). When the whole answer comes in the last chunk (an
 * after hook that may change it held the text back), the hooked text is mapped back onto
 * the model's parts (splitBack): a part the hooks did not change goes out delta for delta.
 */
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import type { EmittedChunk } from "../../index.js";
import { ChannelText } from "../shared/channel-text.js";
import { splitBack } from "../shared/split-back.js";
import type { LogEntry, StreamLog, TextDeltaPart } from "./stream.js";

type Channel = "content" | "reasoning";
const CHANNELS: readonly Channel[] = ["content", "reasoning"];
type Emit = (part: LanguageModelV4StreamPart) => void;

const channelOf = (p: LanguageModelV4StreamPart): Channel | undefined =>
  p.type === "text-start" || p.type === "text-end" ? "content" : p.type === "reasoning-start" || p.type === "reasoning-end" ? "reasoning" : undefined;
const isStart = (p: LanguageModelV4StreamPart): p is Extract<LanguageModelV4StreamPart, { type: "text-start" | "reasoning-start" }> => p.type === "text-start" || p.type === "reasoning-start";
const isEnd = (p: LanguageModelV4StreamPart): p is Extract<LanguageModelV4StreamPart, { type: "text-end" | "reasoning-end" }> => p.type === "text-end" || p.type === "reasoning-end";
const isToolPart = (p: LanguageModelV4StreamPart): boolean => p.type === "tool-call" || p.type === "tool-input-start" || p.type === "tool-input-delta" || p.type === "tool-input-end";
const textOf = (e: EmittedChunk, c: Channel): string => (c === "content" ? e.delta : e.reasoning_content ?? "");

export interface Replay {
  /** One effective chunk the host emitted. */
  write(chunk: EmittedChunk): void;
  /** The call settled: what is left of the model's parts, then its finish. */
  end(finish: LanguageModelV4StreamPart): void;
}

export function replay(log: StreamLog, emit: Emit): Replay {
  let cursor = 0;
  let wrote = false;
  let extra = 0;
  let scanned = 0;
  const open = new Set<string>();
  const last: Partial<Record<Channel, string>> = {};
  const sources: Record<Channel, ChannelText> = { content: new ChannelText(), reasoning: new ChannelText() };
  const channelOfPart = new Map<string, Channel>();
  const deferred: LanguageModelV4StreamPart[] = [];
  // Provider metadata of a delta whose text the hooks held back: it goes with the part's next delta.
  const pending = new Map<string, TextDeltaPart["providerMetadata"]>();

  const scan = (): void => {
    for (; scanned < log.entries.length; scanned++) {
      const e = log.entries[scanned]!;
      if (e.kind !== "text") continue;
      sources[e.channel].add(e.part.id, e.at, e.part.delta);
      channelOfPart.set(e.part.id, e.channel);
    }
  };
  // A part whose text the hooks still hold: its end waits until that text has gone out.
  const waiting = (id: string): boolean => { const c = channelOfPart.get(id); return c !== undefined && sources[c].waiting(id); };
  const relay = (p: LanguageModelV4StreamPart): void => {
    const c = channelOf(p);
    // A tool call (and its streamed input) keeps its place behind a text part whose end waits
    // for held text: the consumer sees the text the model gave before the call first.
    if (isToolPart(p) && deferred.length > 0) { deferred.push(p); return; }
    if (c && isStart(p)) { open.add(p.id); last[c] = p.id; }
    if (c && isEnd(p)) {
      // Text of the part the hooks still hold: its end goes after that text.
      if (waiting(p.id)) { deferred.push(p); return; }
      open.delete(p.id);
    }
    emit(p);
  };
  /** Deferred parts whose turn has come: an end whose text has gone out, and a tool part the ends before it no longer hold. */
  const release = (): void => {
    for (let i = 0; i < deferred.length;) {
      const p = deferred[i]!;
      const blocked = channelOf(p) ? waiting((p as { id: string }).id) : deferred.slice(0, i).some(isEnd);
      if (blocked) { i++; continue; }
      deferred.splice(i, 1);
      if (isEnd(p)) open.delete(p.id);
      emit(p);
    }
  };
  /** The log's entries before chunk `k` (an own entry of chunk k, or the first after it), from the cursor. */
  const boundary = (k: number): number => {
    let b = cursor;
    while (b < log.entries.length && !(log.entries[b]!.at > k || (log.entries[b]!.at === k && log.entries[b]!.own))) b++;
    return b;
  };
  const flush = (b: number): void => {
    scan();
    for (; cursor < b; cursor++) {
      const e = log.entries[cursor]!;
      // A delta the hooks held back or removed: its text, if any, goes out with a later chunk.
      // An empty one (a signature in its metadata) has nothing to scan and goes as it is.
      if (e.kind === "text") {
        if (e.part.delta === "") emit(e.part);
        else if (e.part.providerMetadata) pending.set(e.part.id, e.part.providerMetadata);
        continue;
      }
      relay(e.part);
    }
  };
  const deltaOf = (c: Channel, id: string, delta: string, own: TextDeltaPart | undefined): void => {
    if (delta === "") return;
    if (!open.has(id)) {
      // No part of the channel is open (a hook wrote text where the model gave none): a part of its own.
      const fresh = `sluice-${c}-${extra++}`;
      const [start, step, end] = c === "content" ? (["text-start", "text-delta", "text-end"] as const) : (["reasoning-start", "reasoning-delta", "reasoning-end"] as const);
      emit({ type: start, id: fresh });
      emit({ type: step, id: fresh, delta });
      emit({ type: end, id: fresh });
      return;
    }
    const providerMetadata = (own?.id === id ? own.providerMetadata : undefined) ?? pending.get(id);
    pending.delete(id);
    emit({ ...(own?.id === id ? own : { type: c === "content" ? "text-delta" : "reasoning-delta", id }), delta, ...(providerMetadata ? { providerMetadata } : {}) });
  };
  /**
   * Text the hooks emitted on channel `c` at chunk `k`: the source it stands for is the
   * channel's text from where the consumer is up to the chunk, less what the hooks still
   * hold; it is mapped onto the parts that text came from (splitBack).
   */
  const text = (c: Channel, out: string, k: number, b: number, isLast: boolean): void => {
    scan();
    flush(b);
    const ownEntry = log.entries[b];
    const own = ownEntry?.kind === "text" && ownEntry.channel === c && ownEntry.at === k ? ownEntry.part : undefined;
    const pieces = sources[c].take(out, k, isLast);
    if (pieces.length === 0) deltaOf(c, own?.id ?? last[c] ?? "", out, own);
    else for (const piece of pieces) deltaOf(c, piece.key, piece.text, own);
    release();
  };

  /** The whole answer in one chunk: the hooked texts mapped back onto the model's parts, every part replayed in order. */
  const whole = (chunk: EmittedChunk): void => {
    const after = new Map<string, string>();
    const deltas = new Map<string, TextDeltaPart[]>();
    for (const e of log.entries) if (e.kind === "text") (deltas.get(e.part.id) ?? deltas.set(e.part.id, []).get(e.part.id)!).push(e.part);
    const orphan: Channel[] = [];
    for (const c of CHANNELS) {
      // A part's id from its start, or from its first delta when a provider sent none.
      const ids = [...new Set(log.entries.flatMap((e) => (e.kind === "text" ? (e.channel === c ? [e.part.id] : []) : isStart(e.part) && channelOf(e.part) === c ? [e.part.id] : [])))];
      const before = ids.map((id) => (deltas.get(id) ?? []).map((d) => d.delta).join(""));
      const now = splitBack(before, textOf(chunk, c));
      ids.forEach((id, i) => { if (now[i] !== before[i]) after.set(id, now[i]!); });
      if (ids.length === 0 && textOf(chunk, c) !== "") orphan.push(c);
    }
    const done = new Set<string>();
    for (const e of log.entries) {
      const p = e.part;
      const changed = after.get(e.kind === "text" ? e.part.id : isEnd(p) ? p.id : "");
      if (e.kind === "text") {
        if (changed === undefined) emit(e.part);
        else if (!done.has(e.part.id)) {
          done.add(e.part.id);
          // One delta for the part's new text, with the metadata its last delta carried.
          const providerMetadata = deltas.get(e.part.id)!.findLast((d) => d.providerMetadata)?.providerMetadata;
          if (changed !== "") emit({ ...e.part, delta: changed, ...(providerMetadata ? { providerMetadata } : {}) });
        }
        continue;
      }
      if (changed !== undefined && isEnd(p) && !done.has(p.id) && changed !== "") {
        done.add(p.id);
        emit({ type: p.type === "text-end" ? "text-delta" : "reasoning-delta", id: p.id, delta: changed });
      }
      emit(p);
    }
    cursor = log.entries.length;
    // Text a hook wrote where the model gave none: a part of its own.
    for (const c of orphan) deltaOf(c, "", textOf(chunk, c), undefined);
  };

  return {
    write(chunk) {
      if (chunk.is_last && !wrote) { whole(chunk); return; }
      wrote = true;
      const b = boundary(chunk.chunk_index);
      const ownEntry: LogEntry | undefined = log.entries[b]?.at === chunk.chunk_index ? log.entries[b] : undefined;
      // Text a hook released at this chunk for the other channel first, then the chunk's own.
      const order = ownEntry?.kind === "text" && ownEntry.channel === "content" ? (["reasoning", "content"] as const) : (["content", "reasoning"] as const);
      for (const c of order) if (textOf(chunk, c) !== "") text(c, textOf(chunk, c), chunk.chunk_index, b, chunk.is_last);
      flush(b);
      if (ownEntry) {
        cursor = b + 1;
        if (ownEntry.kind === "relay") relay(ownEntry.part);
        else if (ownEntry.part.delta === "" && textOf(chunk, ownEntry.channel) === "") emit(ownEntry.part);
      }
    },
    end(finish) {
      flush(log.entries.length);
      for (const p of deferred.splice(0)) emit(p);
      emit(finish);
    },
  };
}
