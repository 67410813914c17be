/**
 * Between the AI SDK's stream parts and the host's chunks. Text, reasoning and tool-input
 * deltas go through the chunk hooks; every other part (stream-start, response-metadata,
 * text and reasoning starts and ends with their provider metadata, sources, files,
 * provider-executed tools, finish) is logged in its place and replayed around the hooked
 * text. Raw provider chunks are never relayed: they would carry the text unscanned.
 */
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import type { ToolCallDelta } from "../../index.js";
import type { EffectivePiece, Piece, Usage } from "../shared/host-chat.js";
import { finishOf, sdkUsage, TO_OPENAI, usageOf } from "./answer.js";

/**
 * The model's stream parts in order, each with the host chunk it became (`own`) or comes
 * before: the consumer's side replays them around the hooked text (stream-replay.ts), so
 * every part keeps its place, its id and its provider metadata.
 */
export interface StreamLog {
  /** The model was called (false when a hook served the answer). */
  opened: boolean;
  entries: LogEntry[];
  /** Chunks handed to the host so far. */
  chunks: number;
  finish?: Extract<LanguageModelV4StreamPart, { type: "finish" }>;
}

export type TextDeltaPart = Extract<LanguageModelV4StreamPart, { type: "text-delta" | "reasoning-delta" }>;
export type LogEntry =
  /** A text or reasoning delta: host chunk `at`; what the consumer gets of it is what the chunk hooks let through. */
  | { kind: "text"; at: number; own: true; channel: "content" | "reasoning"; part: TextDeltaPart }
  /** A part relayed as it is: a tool-input part that is host chunk `at` (own), or a part with no model text that comes before chunk `at`. */
  | { kind: "relay"; at: number; own: boolean; part: LanguageModelV4StreamPart };

export function streamLog(): StreamLog {
  return { opened: false, entries: [], chunks: 0 };
}

/** Reads the model's stream parts into pieces for the host, logging each part; one reader per stream. */
export function pieceReader(log: StreamLog): (part: LanguageModelV4StreamPart) => Piece | undefined {
  const indexOf = new Map<string, number>();
  const streamed = new Set<string>();
  const index = (id: string): number => {
    let i = indexOf.get(id);
    if (i === undefined) indexOf.set(id, (i = indexOf.size));
    return i;
  };
  const aside = (part: LanguageModelV4StreamPart): undefined => { log.entries.push({ kind: "relay", at: log.chunks, own: false, part }); return undefined; };
  const own = (part: LanguageModelV4StreamPart, piece: Piece): Piece => { log.entries.push({ kind: "relay", at: log.chunks++, own: true, part }); return piece; };
  return (part) => {
    switch (part.type) {
      case "text-delta":
      case "reasoning-delta":
        log.entries.push({ kind: "text", at: log.chunks++, own: true, channel: part.type === "text-delta" ? "content" : "reasoning", part });
        return part.type === "text-delta" ? { text: part.delta } : { reasoning: part.delta };
      case "tool-input-start":
        if (part.providerExecuted) return aside(part);
        streamed.add(part.id);
        return own(part, { toolCalls: [{ index: index(part.id), id: part.id, function: { name: part.toolName } }] });
      case "tool-input-delta":
        return streamed.has(part.id) ? own(part, { toolCalls: [{ index: index(part.id), function: { arguments: part.delta } }] }) : aside(part);
      case "tool-call":
        // A call whose input was streamed is complete already; one that came whole goes as one delta.
        if (part.providerExecuted || streamed.has(part.toolCallId)) return aside(part);
        return own(part, { toolCalls: [{ index: index(part.toolCallId), id: part.toolCallId, function: { name: part.toolName, arguments: part.input } }] });
      case "finish":
        // Relayed last, once the call has settled.
        log.finish = part;
        log.chunks++;
        return { finishReason: TO_OPENAI[part.finishReason.unified], usage: usageOf(part.usage) };
      case "error": throw part.error;
      // Raw provider chunks carry the text unscanned: never relayed.
      case "raw": return undefined;
      default:
        return aside(part);
    }
  };
}

/** Writes a served answer's pieces (a hook's short-circuit: no model parts to replay) as the AI SDK's stream parts. */
export interface PartWriter {
  write(piece: EffectivePiece): void;
  /** Closes what is open, completes the tool calls, and finishes. */
  end(finishReason: string, usage: Usage): void;
}

export function partWriter(emit: (part: LanguageModelV4StreamPart) => void): PartWriter {
  let text = false;
  let reasoning = false;
  const calls: { id: string; name: string; args: string; started: boolean }[] = [];
  const closeReasoning = (): void => { if (reasoning) { emit({ type: "reasoning-end", id: "reasoning-0" }); reasoning = false; } };
  const start = (c: (typeof calls)[number]): void => {
    if (c.started || !c.id || !c.name) return;
    c.started = true;
    emit({ type: "tool-input-start", id: c.id, toolName: c.name });
    if (c.args) emit({ type: "tool-input-delta", id: c.id, delta: c.args });
  };
  const toolDelta = (d: ToolCallDelta): void => {
    const c = (calls[d.index] ??= { id: "", name: "", args: "", started: false });
    if (d.id) c.id = d.id;
    if (d.function?.name) c.name += d.function.name;
    const args = d.function?.arguments ?? "";
    if (c.started) { if (args) emit({ type: "tool-input-delta", id: c.id, delta: args }); c.args += args; return; }
    c.args += args;
    start(c);
  };
  return {
    write(piece) {
      if (piece.reasoning) {
        if (!reasoning) { emit({ type: "reasoning-start", id: "reasoning-0" }); reasoning = true; }
        emit({ type: "reasoning-delta", id: "reasoning-0", delta: piece.reasoning });
      }
      if (piece.text) {
        closeReasoning();
        if (!text) { emit({ type: "text-start", id: "text-0" }); text = true; }
        emit({ type: "text-delta", id: "text-0", delta: piece.text });
      }
      for (const d of piece.toolCalls) toolDelta(d);
    },
    end(finishReason, usage) {
      closeReasoning();
      if (text) emit({ type: "text-end", id: "text-0" });
      for (const c of calls) {
        start(c);
        emit({ type: "tool-input-end", id: c.id });
        emit({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: c.args });
      }
      emit({ type: "finish", finishReason: finishOf(finishReason), usage: sdkUsage(usage) });
    },
  };
}
