/**
 * Between the AI SDK's stream parts and the host's chunks. Text, reasoning and tool-input
 * deltas go through the chunk hooks; parts that carry no model text (stream-start,
 * response-metadata, finish) are kept aside and re-emitted around the hooked text. Raw
 * provider chunks are never relayed: they would carry the text unscanned.
 */
import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import type { ToolCallDelta } from "../../index.js";
import type { EffectivePiece, Piece, Usage } from "../shared/host-chat.js";
import { finishOf, sdkUsage, TO_OPENAI, usageOf } from "./answer.js";

/** What the model's stream said besides its text, kept for the consumer's side. */
export interface StreamAside {
  start?: Extract<LanguageModelV4StreamPart, { type: "stream-start" }>;
  metadata?: Extract<LanguageModelV4StreamPart, { type: "response-metadata" }>;
  finish?: Extract<LanguageModelV4StreamPart, { type: "finish" }>;
  /** Sources, files, provider-executed tool results: no model text, relayed before the finish. */
  extras: LanguageModelV4StreamPart[];
}

/** Reads the model's stream parts into pieces for the host; one reader per stream. */
export function pieceReader(aside: StreamAside): (part: LanguageModelV4StreamPart) => Piece | undefined {
  const indexOf = new Map<string, number>();
  const streamed = new Set<string>();
  const index = (id: string): number => {
    let i = indexOf.get(id);
    if (i === undefined) indexOf.set(id, (i = indexOf.size));
    return i;
  };
  return (part) => {
    switch (part.type) {
      case "text-delta": return { text: part.delta };
      case "reasoning-delta": return { reasoning: part.delta };
      case "tool-input-start":
        if (part.providerExecuted) return undefined;
        streamed.add(part.id);
        return { toolCalls: [{ index: index(part.id), id: part.id, function: { name: part.toolName } }] };
      case "tool-input-delta":
        return streamed.has(part.id) ? { toolCalls: [{ index: index(part.id), function: { arguments: part.delta } }] } : undefined;
      case "tool-call":
        if (part.providerExecuted) { aside.extras.push(part); return undefined; }
        // A call whose input was streamed is complete already; one that came whole goes as one delta.
        return streamed.has(part.toolCallId) ? undefined : { toolCalls: [{ index: index(part.toolCallId), id: part.toolCallId, function: { name: part.toolName, arguments: part.input } }] };
      case "finish":
        aside.finish = part;
        return { finishReason: TO_OPENAI[part.finishReason.unified], usage: usageOf(part.usage) };
      case "stream-start": aside.start = part; return undefined;
      case "response-metadata": aside.metadata = part; return undefined;
      case "error": throw part.error;
      case "text-start": case "text-end": case "reasoning-start": case "reasoning-end": case "tool-input-end": case "raw": case "ping":
        return undefined;
      default:
        aside.extras.push(part);
        return undefined;
    }
  };
}

/** Writes the hooked pieces as the AI SDK's stream parts; one writer per stream. */
export interface PartWriter {
  write(piece: EffectivePiece): void;
  /** Closes what is open, completes the tool calls, relays the extras, and finishes. */
  end(finishReason: string, usage: Usage, aside: StreamAside): void;
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
    end(finishReason, usage, aside) {
      const finish = aside.finish;
      closeReasoning();
      if (text) emit({ type: "text-end", id: "text-0" });
      for (const c of calls) {
        start(c);
        emit({ type: "tool-input-end", id: c.id });
        emit({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: c.args });
      }
      for (const part of aside.extras) emit(part);
      emit({
        type: "finish",
        finishReason: finishOf(finishReason, finish?.finishReason),
        usage: finish?.usage ?? sdkUsage(usage),
        ...(finish?.providerMetadata ? { providerMetadata: finish.providerMetadata } : {}),
      });
    },
  };
}
