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
  return { content: a.text, tool_calls: a.toolCalls, finish_reason: a.finishReason, usage: { input_tokens: a.usage.input, output_tokens: a.usage.output }, ...(a.reasoning ? { reasoning_content: a.reasoning } : {}) };
}

/** An answer's content as text: a string, or its text parts joined (parts of other types carry no text a framework can show). */
function textOf(content: ChatResponse["content"]): string | null {
  if (content === null || typeof content === "string") return content;
  return content.flatMap((p) => (p.type === "text" && typeof (p as { text?: unknown }).text === "string" ? [(p as { text: string }).text] : [])).join("");
}

export function answerOf(r: ChatResponse): Answer {
  const reasoning = r.reasoning_content;
  return {
    text: textOf(r.content),
    ...(typeof reasoning === "string" && reasoning !== "" ? { reasoning } : {}),
    toolCalls: r.tool_calls ?? [],
    finishReason: r.finish_reason,
    usage: { input: r.usage?.input_tokens ?? r.usage?.prompt_tokens ?? 0, output: r.usage?.output_tokens ?? r.usage?.completion_tokens ?? 0 },
  };
}

export function chunkOf(p: Piece): StreamChunk {
  return {
    ...(p.text !== undefined ? { delta: p.text } : {}),
    ...(p.reasoning !== undefined ? { reasoning_content: p.reasoning } : {}),
    ...(p.toolCalls?.length ? { tool_calls: p.toolCalls } : {}),
    ...(p.finishReason !== undefined ? { finish_reason: p.finishReason } : {}),
    ...(p.usage ? { usage: { input_tokens: p.usage.input, output_tokens: p.usage.output } } : {}),
  };
}

export function pieceOf(e: EmittedChunk): EffectivePiece {
  return { text: e.delta, reasoning: e.reasoning_content ?? "", toolCalls: e.tool_calls ?? [], isLast: e.is_last };
}
