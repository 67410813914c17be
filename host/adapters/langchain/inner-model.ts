/**
 * The model a SluiceChatModel wraps, run with no callback manager at all. LangChain's own
 * `invoke` and `stream` build one for every call, from the model's constructor callbacks,
 * `withConfig` callbacks, `verbose`, the tracing and verbose environment variables
 * (LANGSMITH_TRACING, LANGCHAIN_TRACING_V2, LANGCHAIN_VERBOSE) and configure hooks; each
 * handler in it would see the model's raw tokens before any hook ran. So the wrapped model
 * is resolved to the chat model under its bindings, and that model's own `_generate` /
 * `_streamResponseChunks` are called directly, with no run manager, outside the caller's
 * AsyncLocalStorage run config.
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { AIMessage, AIMessageChunk, BaseMessage } from "@langchain/core/messages";
import type { ChatGeneration, ChatGenerationChunk } from "@langchain/core/outputs";
import { RunnableBinding } from "@langchain/core/runnables";
import { AsyncLocalStorageProviderSingleton } from "@langchain/core/singletons";
import type { BaseCache } from "@langchain/core/caches";
import { SluiceError } from "../../index.js";

type Options = Record<string, unknown>;

/** A chat model under its bindings, and the call options those bindings carry. */
export interface ResolvedModel {
  model: BaseChatModel;
  /** Call options bound by `bindTools` and `withConfig` (RunnableConfig keys left out). */
  options: Options;
  /** Bound `configurable` values: what a configurable model (initChatModel) is built from. */
  configurable: Options;
  /** The shortest bound `timeout`, in milliseconds; LangChain turns it into an abort signal. */
  timeout?: number;
}

/**
 * What a binding carries for LangChain's runtime rather than for the model: the keys
 * `Runnable._separateRunnableConfigFromCallOptions` takes out. Callbacks are among them,
 * so callbacks bound to the wrapped model are never called.
 */
const CONFIG_KEYS = new Set(["callbacks", "tags", "metadata", "runName", "configurable", "recursionLimit", "maxConcurrency", "runId", "timeout", "signal"]);

function callOptionsOf(options: Options | undefined): Options {
  return Object.fromEntries(Object.entries(options ?? {}).filter(([k, v]) => !CONFIG_KEYS.has(k) && v !== undefined));
}

function nameOf(m: unknown): string {
  if (m === null || typeof m !== "object") return typeof m;
  const ctor = (m as { constructor?: { name?: string; lc_name?: () => string } }).constructor;
  return ctor?.lc_name?.() || ctor?.name || "object";
}

function isChatModel(m: unknown): m is BaseChatModel {
  if (m instanceof BaseChatModel) return true;
  // Another copy of @langchain/core: its chat models are BaseChatModels of that copy.
  const c = m as { _generate?: unknown; _modelType?: () => string } | null;
  return typeof c?._generate === "function" && typeof c._modelType === "function" && c._modelType() === "base_chat_model";
}

/**
 * A binding made by `withConfig`, `bindTools` or `withListeners`: it only adds options. Its
 * subclasses change the call (RunnableRetry retries it, RunnableWithMessageHistory loads
 * history), so they are not unwrapped.
 */
function isPlainBinding(m: unknown): m is RunnableBinding<unknown, unknown> {
  if (!RunnableBinding.isRunnableBinding(m)) return false;
  const proto = Object.getPrototypeOf(m) as object;
  return proto === RunnableBinding.prototype || nameOf(m) === "RunnableBinding";
}

/** A model `initChatModel` (and `createAgent` given a model name) builds: the provider's model comes per call. */
function isConfigurable(m: BaseChatModel): m is BaseChatModel & { _getModelInstance(config: Options): Promise<unknown> } {
  return typeof (m as { _getModelInstance?: unknown })._getModelInstance === "function" && "_queuedMethodOperations" in m;
}

function refused(m: unknown, given: unknown): SluiceError {
  const name = nameOf(m);
  return new SluiceError("CONFIG_INVALID",
    `SluiceChatModel wraps a chat model (a BaseChatModel, or one bound by bindTools or withConfig), not a ${name}: ` +
    `it would run the model through LangChain's callbacks, which would see its raw tokens. Wrap the chat model itself and ` +
    `apply withRetry / withFallbacks to the SluiceChatModel (a failing model rejects with its own error, so they work as before).`,
    { wrapped: name, ...(given !== m ? { given: nameOf(given) } : {}) });
}

/**
 * The chat model under `given`'s bindings, with the options they bind. Inner options give
 * way to outer ones and a binding's `kwargs` win over its `config`, as when LangChain
 * merges them on the way in. Anything else (RunnableRetry, RunnableWithFallbacks, a
 * RunnableLambda, a sequence) is refused with CONFIG_INVALID: it cannot run without a
 * callback manager.
 */
export function resolveModel(given: unknown, outer: Omit<ResolvedModel, "model"> = { options: {}, configurable: {} }): ResolvedModel {
  let m = given;
  let { options, configurable, timeout } = outer;
  while (isPlainBinding(m)) {
    const config = m.config as Options | undefined;
    options = { ...callOptionsOf(config), ...options, ...callOptionsOf(m.kwargs as Options | undefined) };
    configurable = { ...(config?.configurable as Options | undefined), ...configurable };
    const t = config?.timeout;
    if (typeof t === "number" && t > 0) timeout = timeout === undefined ? t : Math.min(timeout, t);
    m = m.bound;
  }
  if (!isChatModel(m)) throw refused(m, given);
  return { model: m, options, configurable, ...(timeout !== undefined ? { timeout } : {}) };
}

/** The provider's own model of a configurable one, resolved again under the same bindings. */
async function concrete(r: ResolvedModel): Promise<ResolvedModel> {
  let now = r;
  while (isConfigurable(now.model)) now = resolveModel(await now.model._getModelInstance({ configurable: now.configurable }), now);
  return now;
}

/** A model that streams: one with its own `_streamResponseChunks`, streaming not disabled (LangChain's own test). */
function streams(model: BaseChatModel): boolean {
  if (model.disableStreaming) return false;
  let owner: object | null = model;
  while (owner !== null && !Object.hasOwn(owner, "_streamResponseChunks")) owner = Object.getPrototypeOf(owner) as object | null;
  return owner !== null && owner !== BaseChatModel.prototype && nameOf(owner) !== "BaseChatModel";
}

/** Runs `f` outside any LangChain run config the caller's context carries. */
function detached<T>(f: () => T): T {
  return AsyncLocalStorageProviderSingleton.getInstance().run(undefined, f) as T;
}

/** One call of the wrapped model: the chat model to call and its complete call options. */
interface Prepared { model: BaseChatModel; options: Options & { signal: AbortSignal } }

/**
 * The call's model and options: the bound ones, then the call's own (`tools` bound by the
 * model's own `bindTools`, so it formats them itself), and the host's signal.
 */
async function prepare(inner: ResolvedModel, call: Options, tools: unknown[] | undefined, signal: AbortSignal): Promise<Prepared> {
  let r = await concrete(inner);
  let options = { ...r.options, ...callOptionsOf(call) };
  if (tools?.length) {
    if (typeof r.model.bindTools !== "function") throw new SluiceError("CONFIG_INVALID", `The wrapped chat model ${nameOf(r.model)} has no bindTools, so it cannot be given the call's tools.`, { wrapped: nameOf(r.model) });
    r = await concrete(resolveModel(r.model.bindTools(tools as never, callOptionsOf(call) as never), { ...r, options: {} }));
    options = { ...options, ...r.options };
  }
  return { model: r.model, options: { ...options, signal: r.timeout === undefined ? signal : AbortSignal.any([signal, AbortSignal.timeout(r.timeout)]) } };
}

/** A generation's message with its generation info folded into `response_metadata`, as LangChain's own generate does. */
function messageOfGeneration(g: ChatGeneration | ChatGenerationChunk, llmOutput?: Options): AIMessage {
  const message = g.message as AIMessage;
  message.response_metadata = { ...llmOutput, ...g.generationInfo, ...message.response_metadata };
  return message;
}

/** What LangChain's own generate keys a model's cache with, and the cache (a model built with `cache: true` or a BaseCache). */
interface Cached { cache: BaseCache; prompt: string; key: string }

function cachedOf(model: BaseChatModel, messages: BaseMessage[], options: Options): Cached | undefined {
  const cache = model.cache;
  if (!cache) return undefined;
  const keyed = model as unknown as { _getSerializedCacheKeyParametersForCall(o: Options): string };
  const convert = BaseChatModel as unknown as { _convertInputToPromptValue(m: BaseMessage[]): { toString(): string } };
  // The signal is the host's, not a call option: LangChain's key leaves it out too.
  const { signal: _signal, ...callOptions } = options;
  return { cache, prompt: convert._convertInputToPromptValue(messages).toString(), key: keyed._getSerializedCacheKeyParametersForCall(callOptions) };
}

async function generateWith({ model, options }: Prepared, messages: BaseMessage[]): Promise<AIMessage> {
  // The model's own cache, as its invoke would consult it (the stream path does not, in LangChain either).
  const cached = cachedOf(model, messages, options);
  const hit = cached ? await cached.cache.lookup(cached.prompt, cached.key) : null;
  if (hit?.[0] && "message" in hit[0]) {
    const message = (hit[0] as ChatGeneration).message as AIMessage;
    // A cached answer cost no tokens, as LangChain reports it.
    message.usage_metadata = { input_tokens: 0, output_tokens: 0, total_tokens: 0 };
    return messageOfGeneration(hit[0] as ChatGeneration);
  }
  const result = await detached(() => model._generate(messages, options as never, undefined));
  if (cached && result.generations.length > 0) await cached.cache.update(cached.prompt, cached.key, result.generations);
  const g = result.generations[0];
  if (!g) throw new SluiceError("MODEL_OUTPUT_INVALID", `The wrapped chat model ${nameOf(model)} returned no generation.`, { wrapped: nameOf(model) });
  return messageOfGeneration(g, result.generations.length === 1 ? result.llmOutput : undefined);
}

/** The wrapped model's answer to `messages`, generated with no callback manager. */
export async function generate(inner: ResolvedModel, messages: BaseMessage[], call: Options, tools: unknown[] | undefined, signal: AbortSignal): Promise<AIMessage> {
  return generateWith(await prepare(inner, call, tools, signal), messages);
}

/**
 * The wrapped model's answer to `messages`, streamed with no callback manager. A model
 * that does not stream answers in one piece (its message, which carries whole tool calls).
 */
export async function* stream(inner: ResolvedModel, messages: BaseMessage[], call: Options, tools: unknown[] | undefined, signal: AbortSignal): AsyncGenerator<AIMessageChunk> {
  const prepared = await prepare(inner, call, tools, signal);
  const { model, options } = prepared;
  if (!streams(model)) {
    yield await generateWith(prepared, messages) as unknown as AIMessageChunk;
    return;
  }
  const chunks = detached(() => model._streamResponseChunks(messages, options as never, undefined));
  try {
    for (;;) {
      // Each step runs detached: a provider's generator resumes in the context of the next() that drives it.
      const next = await detached(() => chunks.next());
      if (next.done) return;
      yield messageOfGeneration(next.value) as AIMessageChunk;
    }
  } finally {
    await chunks.return(undefined);
  }
}
