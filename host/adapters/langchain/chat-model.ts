import { BaseChatModel, type BaseChatModelCallOptions, type BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import { AIMessage, AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { ChatGenerationChunk, type ChatResult } from "@langchain/core/outputs";
import type { Runnable } from "@langchain/core/runnables";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import type { BoundaryResult, CallContext, ChatRequest, ChatResponse, EmittedChunk, Host } from "../../index.js";
import { answerOf, chunkOf, pieceOf, responseOf, type Answer, type Piece } from "../shared/host-chat.js";
import { optionsAfter, paramsOf } from "./params.js";
import { generate, resolveModel, stream, type ResolvedModel } from "./inner-model.js";
import { chatMessageOf, messagesAfter, textOf, toolCallsOf } from "./messages.js";
import { contentSlots, joined, messageWith, reasoningSlots, withCallChunks } from "./answer-text.js";
import { ChunkReplay } from "./chunk-replay.js";
import { splitBack } from "../shared/split-back.js";

/** Call options of a {@link SluiceChatModel}: the base ones, and the tools `bindTools` bound (handed to the wrapped model as they are). */
export interface SluiceChatModelCallOptions extends BaseChatModelCallOptions {
  tools?: BindToolsInput[];
}

/**
 * The chat model a SluiceChatModel wraps: a LangChain chat model (a `BaseChatModel`), or
 * one bound by `bindTools` or `withConfig`. Other runnables (`withRetry`,
 * `withFallbacks`, lambdas, sequences) are refused with CONFIG_INVALID.
 */
export type WrappedChatModel = Pick<BaseChatModel, "invoke" | "stream"> & { bindTools?: BaseChatModel["bindTools"] };

/** What a {@link SluiceChatModel} is built from. */
export interface SluiceChatModelFields {
  /** The chat model to run through the host; see {@link WrappedChatModel} for what it may be. */
  model: WrappedChatModel;
  host: Host;
  /** The hooks' context of each call: a fixed one, or one per call. */
  context: CallContext | ((messages: BaseMessage[], options: SluiceChatModelCallOptions) => CallContext);
  /** The model id bindings match and hooks see; the wrapped model's `model` field (or "langchain") by default. */
  modelId?: string;
}

/** A failing model call rejects with the model's own error, after the host recorded it: LangChain's retries and fallbacks see it. */
const ORIGINAL = { errorMode: "original" } as const;

function finishOf(m: { response_metadata?: Record<string, unknown> }, hasCalls: boolean): string | undefined {
  const r = m.response_metadata?.finish_reason ?? m.response_metadata?.stop_reason;
  return typeof r === "string" ? r : hasCalls ? "tool_calls" : undefined;
}

function answerOfMessage(m: AIMessage): Answer {
  const toolCalls = toolCallsOf(m);
  const text = joined(contentSlots(m));
  const reasoning = joined(reasoningSlots(m));
  return {
    text: text === "" && toolCalls.length ? null : text, ...(reasoning ? { reasoning } : {}), toolCalls,
    finishReason: finishOf(m, toolCalls.length > 0) ?? "stop",
    usage: { input: m.usage_metadata?.input_tokens ?? 0, output: m.usage_metadata?.output_tokens ?? 0 },
  };
}

/**
 * Reads a model's stream chunks into pieces for the host; one reader per stream. Tool
 * calls come as `tool_call_chunks` (streamed arguments) or, from some models, whole in
 * `tool_calls`: those get the next free index, one delta each.
 */
function chunkReader(): (c: AIMessageChunk) => Piece {
  let next = 0;
  return (c) => {
    const text = joined(contentSlots(c));
    const reasoning = joined(reasoningSlots(c));
    const streamed = (c.tool_call_chunks ?? []).map((t, i) => ({ index: t.index ?? i, ...(t.id ? { id: t.id } : {}), function: { ...(t.name ? { name: t.name } : {}), ...(t.args ? { arguments: t.args } : {}) } }));
    for (const d of streamed) next = Math.max(next, d.index + 1);
    const whole = streamed.length ? [] : (c.tool_calls ?? []).map((t) => ({ index: next++, id: t.id ?? `call_${next}`, function: { name: t.name, arguments: JSON.stringify(t.args ?? {}) } }));
    const calls = [...streamed, ...whole];
    const finish = finishOf(c, false);
    return {
      ...(text ? { text } : {}), ...(reasoning ? { reasoning } : {}), ...(calls.length ? { toolCalls: calls } : {}), ...(finish ? { finishReason: finish } : {}),
      ...(c.usage_metadata ? { usage: { input: c.usage_metadata.input_tokens, output: c.usage_metadata.output_tokens } } : {}),
    };
  };
}

/**
 * A LangChain chat model run through the host: `invoke` through `host.chat`, `stream`
 * (and any invoke a streaming callback asks to stream, as LangGraph's `streamMode:
 * "messages"` does) through `host.chatStream`.
 *
 * What is guaranteed: the wrapped model runs with no callback manager at all. Its own
 * `_generate` / `_streamResponseChunks` are called directly, so no handler ever sees its
 * raw tokens or messages: not the caller's callbacks, not callbacks set on the wrapped
 * model (constructor `callbacks`, `withConfig({ callbacks })`, `withListeners`), not
 * LangSmith tracing or `verbose` (`LANGSMITH_TRACING`, `LANGCHAIN_TRACING_V2`,
 * `LANGCHAIN_VERBOSE`), not configure hooks. Callbacks and tracing set on the
 * SluiceChatModel (or on the run) work as usual and see the hooked answer and tokens only
 * (and the caller's own input). The wrapped model's call options bound by `bindTools` or
 * `withConfig` are kept, its provider's own retries (`maxRetries`) stay, and an invoke
 * consults its LangChain `cache` as LangChain would (a cached answer still passes through
 * the hooks; streams skip the cache, as in LangChain). A model that is not a chat model or a binding of one
 * (`withRetry`, `withFallbacks`, a lambda) is refused with CONFIG_INVALID: apply those to
 * the SluiceChatModel instead. A reject or block throws the host's SluiceError; a failure
 * of the wrapped model its own error (so retries and fallbacks work as without Sluice).
 *
 * @example
 * const model = new SluiceChatModel({ model: new ChatOpenAI({ model: "gpt-4o" }), host, context: { spaceId: "support" } });
 * for await (const chunk of await model.stream("Where is my order?")) process.stdout.write(chunk.text);
 */
export class SluiceChatModel extends BaseChatModel<SluiceChatModelCallOptions> {
  readonly inner: WrappedChatModel;
  private readonly resolved: ResolvedModel;
  private readonly host: Host;
  private readonly contextOption: SluiceChatModelFields["context"];
  private readonly modelId: string;

  /** @throws SluiceError CONFIG_INVALID when `fields.model` is not a chat model or a binding of one. */
  constructor(fields: SluiceChatModelFields) {
    super({});
    this.inner = fields.model;
    this.resolved = resolveModel(fields.model);
    this.host = fields.host;
    this.contextOption = fields.context;
    const chat = this.resolved.model as { model?: unknown; modelName?: unknown };
    const named = chat.model ?? chat.modelName;
    this.modelId = fields.modelId ?? (typeof named === "string" && named !== "" ? named : "langchain");
  }

  _llmType(): string {
    return "sluice";
  }

  /** Tools stay as given: the wrapped model binds them itself, in its own format. */
  override bindTools(tools: BindToolsInput[], kwargs?: Partial<SluiceChatModelCallOptions>): Runnable<BaseLanguageModelInput, AIMessageChunk, SluiceChatModelCallOptions> {
    return this.withConfig({ tools, ...kwargs } as Partial<SluiceChatModelCallOptions>) as never;
  }

  private contextOf(messages: BaseMessage[], options: SluiceChatModelCallOptions): CallContext {
    const base = typeof this.contextOption === "function" ? this.contextOption(messages, options) : this.contextOption;
    const signals = [base.signal, options.signal].filter((s): s is AbortSignal => s !== undefined);
    return { ...base, ...(signals.length ? { signal: signals.length === 1 ? signals[0]! : AbortSignal.any(signals) } : {}) };
  }

  private requestOf(messages: BaseMessage[], options: SluiceChatModelCallOptions): ChatRequest {
    const tools = (options.tools ?? []).map((t) => convertToOpenAITool(t as never).function).map((f) => ({ name: f.name, ...(f.description ? { description: f.description } : {}), parameters: (f.parameters ?? { type: "object" }) as Record<string, unknown> }));
    const params = paramsOf(options);
    return { model: this.modelId, messages: messages.map(chatMessageOf), ...(tools.length ? { tools } : {}), ...(Object.keys(params).length ? { params } : {}) };
  }

  /** The call's own options for the wrapped model, with the hooks' params: all but the tools (bound by its own bindTools) and what LangChain adds. */
  private static callOf(options: SluiceChatModelCallOptions, shown: ChatRequest, hooked: ChatRequest): Record<string, unknown> {
    const { tools: _tools, signal: _signal, promptIndex: _index, ...call } = options as SluiceChatModelCallOptions & { promptIndex?: number };
    return optionsAfter(call, (shown.params ?? {}) as Record<string, unknown>, (hooked.params ?? {}) as Record<string, unknown>);
  }

  async _generate(messages: BaseMessage[], options: SluiceChatModelCallOptions): Promise<ChatResult> {
    const shown = this.requestOf(messages, options);
    let real: AIMessage | undefined;
    const r = await this.host.chat(this.contextOf(messages, options), shown, async (request, op) => {
      real = await generate(this.resolved, messagesAfter(messages, shown.messages, request.messages), SluiceChatModel.callOf(options, shown, request), options.tools, op.signal);
      return responseOf(answerOfMessage(real));
    }, ORIGINAL);
    if (!r.ok) throw r.error;
    const message = messageOf(answerOf(r.output), r.facts.called ? real : undefined);
    return { generations: [{ text: textOf(message.content), message }] };
  }

  override async *_streamResponseChunks(messages: BaseMessage[], options: SluiceChatModelCallOptions, runManager?: CallbackManagerForLLMRun): AsyncGenerator<ChatGenerationChunk> {
    const shown = this.requestOf(messages, options);
    // The model's chunks in the order they went to the host: replayed to the consumer with the hooked text.
    const log: AIMessageChunk[] = [];
    let opened = false;
    const emitting = this.host.chatStream(this.contextOf(messages, options), shown, async function* (this: SluiceChatModel, request: ChatRequest, op: { signal: AbortSignal }) {
      opened = true;
      const read = chunkReader();
      for await (const chunk of stream(this.resolved, messagesAfter(messages, shown.messages, request.messages), SluiceChatModel.callOf(options, shown, request), options.tools, op.signal)) {
        const piece = read(chunk);
        log.push(withCallChunks(chunk, piece.toolCalls ?? []));
        yield chunkOf(piece);
      }
    }.bind(this), ORIGINAL);
    const replayed = new ChunkReplay(log);
    for await (const emitted of emitting) {
      const out = opened ? replayed.write(emitted) : await served(emitted, emitting.result);
      for (const message of out) {
        const text = joined(contentSlots(message));
        const chunk = new ChatGenerationChunk({ message, text });
        yield chunk;
        await runManager?.handleLLMNewToken(text, undefined, undefined, undefined, undefined, { chunk });
      }
    }
    const r = await emitting.result;
    if (!r.ok) throw r.error;
  }
}

/** A chunk of a served answer (a hook's short-circuit: no model chunks to replay); the last carries the answer's finish reason and usage. */
async function served(emitted: EmittedChunk, result: Promise<BoundaryResult<ChatResponse>>): Promise<AIMessageChunk[]> {
  const piece = pieceOf(emitted);
  const fields: ConstructorParameters<typeof AIMessageChunk>[0] & object = {
    content: piece.text,
    ...(piece.reasoning ? { additional_kwargs: { reasoning_content: piece.reasoning } } : {}),
    ...(piece.toolCalls.length ? { tool_call_chunks: piece.toolCalls.map((d) => ({ type: "tool_call_chunk" as const, index: d.index, ...(d.id ? { id: d.id } : {}), ...(d.function?.name ? { name: d.function.name } : {}), args: d.function?.arguments ?? "" })) } : {}),
  };
  if (piece.isLast) {
    // The call has settled when the last chunk comes.
    const r = await result;
    if (r.ok) {
      const a = answerOf(r.output);
      Object.assign(fields, { response_metadata: { finish_reason: a.finishReason }, usage_metadata: { input_tokens: a.usage.input, output_tokens: a.usage.output, total_tokens: a.usage.input + a.usage.output } });
    }
  }
  if (!piece.text && !piece.reasoning && !piece.toolCalls.length && !piece.isLast) return [];
  return [new AIMessageChunk(fields)];
}

/**
 * The caller's message: the model's own (ids, content blocks, reasoning blocks, metadata,
 * usage, tool calls), with only the text the hooks changed rewritten in the slots it came
 * from (see splitBack); a served answer (`real` absent) built from the hooks' answer.
 */
function messageOf(a: Answer, real: AIMessage | undefined): AIMessage {
  if (!real) {
    return new AIMessage({
      content: a.text ?? "",
      tool_calls: a.toolCalls.map((c) => ({ id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments) as Record<string, unknown>, type: "tool_call" as const })),
      ...(a.reasoning ? { additional_kwargs: { reasoning_content: a.reasoning } } : {}),
      response_metadata: { finish_reason: a.finishReason },
      usage_metadata: { input_tokens: a.usage.input, output_tokens: a.usage.output, total_tokens: a.usage.input + a.usage.output },
    });
  }
  const texts = [contentSlots(real), reasoningSlots(real)].flatMap((slots, n) => {
    const now = splitBack(slots.map((s) => s.text), (n === 0 ? a.text : a.reasoning) ?? "");
    return slots.map((s, i) => ({ slot: s.slot, text: now[i]! }));
  });
  if (texts.every((t, i) => t.text === [...contentSlots(real), ...reasoningSlots(real)][i]!.text) && (reasoningSlots(real).length > 0 || !a.reasoning) && (contentSlots(real).length > 0 || !a.text)) return real;
  const message = messageWith(real, texts);
  // Text a hook wrote where the model gave none.
  if (contentSlots(real).length === 0 && a.text) message.content = Array.isArray(message.content) ? [...message.content, { type: "text", text: a.text }] : a.text;
  if (reasoningSlots(real).length === 0 && a.reasoning) message.additional_kwargs = { ...message.additional_kwargs, reasoning_content: a.reasoning };
  return message;
}
