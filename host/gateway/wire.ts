/**
 * The parts of the OpenAI wire format the gateway reads or writes, taken from the `openai`
 * package's own types where the gateway's view is OpenAI's (tool calls, usage, stream
 * deltas, parameters, embeddings). What clients send is kept open (`[field: string]`):
 * fields the gateway does not name are kept as they came and forwarded to the upstream
 * untouched. Type-only: `openai` is a dev dependency, nothing of it runs.
 */
import type { ChatCompletionChunk, ChatCompletionCreateParamsBase, ChatCompletionMessageFunctionToolCall } from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import type { EmbeddingCreateParams } from "openai/resources/embeddings";

export type WireToolCall = ChatCompletionMessageFunctionToolCall;
export interface WireContentPart { type: string; text?: string; [field: string]: unknown }
export interface WireMessage {
  role: string;
  content?: string | WireContentPart[] | null;
  tool_calls?: WireToolCall[];
  tool_call_id?: string;
  name?: string;
  [field: string]: unknown;
}
export interface WireTool { type: string; function?: { name: string; description?: string; parameters?: Record<string, unknown> }; [field: string]: unknown }

export interface WireChatBody {
  model: string;
  messages: WireMessage[];
  stream?: boolean | null;
  stream_options?: ChatCompletionCreateParamsBase["stream_options"];
  tools?: WireTool[];
  temperature?: ChatCompletionCreateParamsBase["temperature"];
  top_p?: ChatCompletionCreateParamsBase["top_p"];
  max_tokens?: ChatCompletionCreateParamsBase["max_tokens"];
  max_completion_tokens?: ChatCompletionCreateParamsBase["max_completion_tokens"];
  stop?: ChatCompletionCreateParamsBase["stop"];
  n?: ChatCompletionCreateParamsBase["n"];
  [field: string]: unknown;
}

export type WireUsage = CompletionUsage & { [field: string]: unknown };

/** What every completion and chunk of one answer shares. */
export interface CompletionMeta { id: string; created: number; model: string; system_fingerprint?: string; usage?: WireUsage }

export type WireToolCallDelta = ChatCompletionChunk.Choice.Delta.ToolCall;

export type WireEmbeddingBody = EmbeddingCreateParams & { [field: string]: unknown };

/** The error body OpenAI clients parse (`APIError.code`, `.type`, `.param`). */
export interface WireError {
  error: { message: string; type: string; code: string | null; param: string | null; sluice_code?: string };
}
