import { Value } from "./value";
import { Request } from "./request";

// Typed, read-only views of the payloads of the main points. Each field reads the
// payload on access, so a field the plugin was not granted reads as ""/-1/false/nil.
// `payload` keeps the whole map for fields the view does not name.

/** `tool.before`: a tool is about to be called. */
export class ToolBefore {
  constructor(public payload: Value) {}
  static of(req: Request): ToolBefore { return new ToolBefore(req.payload); }
  get toolId(): string { return this.payload.get("tool_id").asStringOr(""); }
  get name(): string { return this.payload.get("name").asStringOr(""); }
  get arguments(): Value { return this.payload.get("arguments"); }
  get callId(): string { return this.payload.get("call_id").asStringOr(""); }
}

/** `tool.after`: a tool returned. */
export class ToolAfter {
  constructor(public payload: Value) {}
  static of(req: Request): ToolAfter { return new ToolAfter(req.payload); }
  get toolId(): string { return this.payload.get("tool_id").asStringOr(""); }
  get name(): string { return this.payload.get("name").asStringOr(""); }
  get arguments(): Value { return this.payload.get("arguments"); }
  get callId(): string { return this.payload.get("call_id").asStringOr(""); }
  /** "succeeded" or "failed". */
  get status(): string { return this.payload.get("status").asStringOr(""); }
  /** The real result (read-only). */
  get result(): Value { return this.payload.get("result"); }
  /** What the model will see of the result: the only patchable and redactable field. */
  get view(): Value { return this.payload.get("view"); }
  get durationMs(): f64 { return this.payload.get("duration_ms").asFloatOr(-1); }
  /** When status is "failed": `{code, message}` of the failure (read-only); nil otherwise. */
  get error(): Value { return this.payload.get("error"); }
  /** What the tool reported it did (files written, records created), read-only; nil when it reported nothing. */
  get artifacts(): Value { return this.payload.get("artifacts"); }
}

/** `model.chat.before`: a chat completion is about to be requested. */
export class ChatBefore {
  constructor(public payload: Value) {}
  static of(req: Request): ChatBefore { return new ChatBefore(req.payload); }
  get model(): string { return this.payload.get("model").asStringOr(""); }
  get messages(): Value { return this.payload.get("messages"); }
  get params(): Value { return this.payload.get("params"); }
  get messageCount(): i32 { return this.messages.length; }
  /** Message `i`'s text (ABI 1.1): its content string, or its text parts joined with "\n"; "" when it has none. */
  messageText(i: i32): string { return textOf(this.messages.at(i).get("content")); }
  /** Message `i`'s reasoning text (ABI 1.1, assistant turns); "" when it has none. */
  messageReasoning(i: i32): string { return this.messages.at(i).get("reasoning_content").asStringOr(""); }
}

/** Content as text: a string as it is, a list of parts as its text parts joined with "\n". */
export function textOf(content: Value): string {
  if (content.isArray()) {
    let out = "";
    let first = true;
    for (let i = 0; i < content.length; i++) {
      const part = content.at(i);
      if (part.get("type").asStringOr("") != "text") continue;
      if (!first) out += "\n";
      out += part.get("text").asStringOr("");
      first = false;
    }
    return out;
  }
  return content.asStringOr("");
}

/** `model.chat.after`: a chat completion finished. */
export class ChatAfter {
  constructor(public payload: Value) {}
  static of(req: Request): ChatAfter { return new ChatAfter(req.payload); }
  get model(): string { return this.payload.get("model").asStringOr(""); }
  /** The answer text: content as a string, or (ABI 1.1) its text parts joined with "\n". */
  get content(): string { return textOf(this.payload.get("content")); }
  /** The content as it is (ABI 1.1): a string, nil, or a list of parts. */
  get contentValue(): Value { return this.payload.get("content"); }
  /** The model's refusal text (ABI 1.1); "" when it did not refuse. */
  get refusal(): string { return this.payload.get("refusal").asStringOr(""); }
  /** The answer's reasoning text (ABI 1.1); "" when there is none. */
  get reasoningContent(): string { return this.payload.get("reasoning_content").asStringOr(""); }
  get toolCalls(): Value { return this.payload.get("tool_calls"); }
  get finishReason(): string { return this.payload.get("finish_reason").asStringOr(""); }
  get usage(): Value { return this.payload.get("usage"); }
}

/** `model.chat.chunk`: one streamed chunk of a chat completion. */
export class ChatChunk {
  constructor(public payload: Value) {}
  static of(req: Request): ChatChunk { return new ChatChunk(req.payload); }
  get model(): string { return this.payload.get("model").asStringOr(""); }
  /** The chunk's text: the suffix held back from the previous chunk, then the new text. */
  get delta(): string { return this.payload.get("delta").asStringOr(""); }
  get chunkIndex(): i64 { return this.payload.get("chunk_index").asIntOr(-1); }
  get isLast(): bool { return this.payload.get("is_last").asBoolOr(false); }
  /** Which text the delta belongs to (ABI 1.1): "content" (the answer), "reasoning" or "refusal". */
  get channel(): string { return this.payload.get("channel").asStringOr("content"); }
  get requestId(): string { return this.payload.get("request_id").asStringOr(""); }
}

/** `model.embedding.before`: texts are about to be embedded. */
export class EmbeddingBefore {
  constructor(public payload: Value) {}
  static of(req: Request): EmbeddingBefore { return new EmbeddingBefore(req.payload); }
  get model(): string { return this.payload.get("model").asStringOr(""); }
  /** The texts, as an array of strings. */
  get texts(): Value { return this.payload.get("texts"); }
  get count(): i32 { return this.texts.length; }
  textAt(i: i32): string { return this.texts.at(i).asStringOr(""); }
}
