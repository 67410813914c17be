/**
 * The parts of the OpenAI wire format the gateway reads or writes. Fields it does not
 * name are kept as they came and forwarded to the upstream untouched.
 */

export interface WireToolCall { id: string; type: "function"; function: { name: string; arguments: string } }
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
  stream_options?: { include_usage?: boolean; [field: string]: unknown } | null;
  tools?: WireTool[];
  temperature?: number | null;
  top_p?: number | null;
  max_tokens?: number | null;
  max_completion_tokens?: number | null;
  stop?: string | string[] | null;
  n?: number | null;
  [field: string]: unknown;
}

export interface WireUsage { prompt_tokens: number; completion_tokens: number; total_tokens: number; [field: string]: unknown }

/** What every completion and chunk of one answer shares. */
export interface CompletionMeta { id: string; created: number; model: string; system_fingerprint?: string; usage?: WireUsage }

export interface WireToolCallDelta { index: number; id?: string; type?: "function"; function?: { name?: string; arguments?: string } }

export interface WireEmbeddingBody {
  model: string;
  input: string | string[] | number[] | number[][];
  encoding_format?: "float" | "base64";
  dimensions?: number;
  [field: string]: unknown;
}

/** The error body OpenAI clients parse (`APIError.code`, `.type`, `.param`). */
export interface WireError {
  error: { message: string; type: string; code: string | null; param: string | null; sluice_code?: string };
}
