/**
 * The one place the adapters meet the host's chat shapes (host/boundary/chat.ts and
 * stream.ts). Each adapter maps its framework to these neutral records; a change of the
 * host's wire shape is a change here only.
 */
import type { ChatResponse, EmittedChunk, StreamChunk, ToolCallDelta, ToolCallOut } from "../../index.js";

export interface Usage {
  input: number;
  output: number;
}

/** A whole answer, as an adapter reads it from its framework or hands it back. */
export interface Answer {
  text: string | null;
  /** Reasoning text of the answer, when the model gave one. */
  reasoning?: string;
  toolCalls: ToolCallOut[];
  /** OpenAI's finish reasons: stop, length, tool_calls, content_filter. */
  finishReason: string;
  usage: Usage;
}

/** One piece of a streamed answer. */
export interface Piece {
  text?: string;
  reasoning?: string;
  toolCalls?: ToolCallDelta[];
  finishReason?: string;
  usage?: Usage;
}

/** What the consumer may be given of one effective (hooked) chunk. */
export interface EffectivePiece {
  text: string;
  reasoning: string;
  toolCalls: ToolCallDelta[];
  isLast: boolean;
}

export function responseOf(a: Answer): ChatResponse {
  return { content: a.text, tool_calls: a.toolCalls, finish_reason: a.finishReason, usage: { input_tokens: a.usage.input, output_tokens: a.usage.output }, ...(a.reasoning ? { reasoning_content: a.reasoning } : {}) } as ChatResponse;
}

export function answerOf(r: ChatResponse): Answer {
  const reasoning = (r as { reasoning_content?: unknown }).reasoning_content;
  return {
    text: r.content,
    ...(typeof reasoning === "string" && reasoning !== "" ? { reasoning } : {}),
    toolCalls: r.tool_calls ?? [],
    finishReason: r.finish_reason,
    usage: { input: r.usage?.input_tokens ?? 0, output: r.usage?.output_tokens ?? 0 },
  };
}

export function chunkOf(p: Piece): StreamChunk {
  return {
    ...(p.text !== undefined ? { delta: p.text } : {}),
    ...(p.reasoning !== undefined ? { reasoning_content: p.reasoning } : {}),
    ...(p.toolCalls?.length ? { tool_calls: p.toolCalls } : {}),
    ...(p.finishReason !== undefined ? { finish_reason: p.finishReason } : {}),
    ...(p.usage ? { usage: { input_tokens: p.usage.input, output_tokens: p.usage.output } } : {}),
  } as StreamChunk;
}

export function pieceOf(e: EmittedChunk): EffectivePiece {
  const reasoning = (e as { reasoning_content?: unknown }).reasoning_content;
  return { text: e.delta, reasoning: typeof reasoning === "string" ? reasoning : "", toolCalls: e.tool_calls ?? [], isLast: e.is_last };
}
