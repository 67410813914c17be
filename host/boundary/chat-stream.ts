/**
 * A streamed chat call (abi/README.md §4.1): the one lifecycle (engine/run-operation.ts)
 * with the streamed real call (stream.ts). Its chunks reach the consumer through a chunk
 * channel; the lifecycle settles `result` before the last chunk goes out. It is recorded
 * like every operation: "running" before the source is asked, the real result before the
 * first after hook, the ending before the last chunk.
 */
import { SluiceError } from "../errors/sluice-error.js";
import { OK } from "../pipeline/result.js";
import { runOperation } from "../engine/run-operation.js";
import type { StageRunner } from "../engine/stages.js";
import type { BoundaryOptions, BoundaryResult, CallContext, OperationContext } from "../engine/call-types.js";
import { chatAfterPayload, chatInput, chatOutput, chatRequestOf, checkToolCalls, servedAnswer, type ChatRequest, type ChatResponse } from "./chat.js";
import { ChunkChannel } from "./chunk-channel.js";
import { originalError } from "./error-mode.js";
import { instanceOf } from "./instance.js";
import { streamedCall, type EmittedChunk, type StreamChunk } from "./stream.js";
import { withKeys } from "../objects/with-keys.js";

/**
 * Iterate it for the effective chunks; `result` settles with the whole call's facts.
 * Stopping early (`break` out of `for await`) cancels the source, runs the error and
 * finally stages, and settles `result` as cancelled (CALL_CANCELLED).
 */
export interface ChatStream extends AsyncIterable<EmittedChunk> {
  readonly result: Promise<BoundaryResult<ChatResponse>>;
  /** The operation's id (its record's), once iterating has begun; undefined before, and for a call refused outright. */
  readonly operationId: string | undefined;
}

export function chatStream(runner: StageRunner, ctx: CallContext, request: ChatRequest, execute: (request: ChatRequest, op: OperationContext) => AsyncIterable<StreamChunk>, options?: Pick<BoundaryOptions, "errorMode">): ChatStream {
  let settle!: (r: BoundaryResult<ChatResponse>) => void;
  const result = new Promise<BoundaryResult<ChatResponse>>((resolve) => { settle = resolve; });
  let started = false;
  let operationId: string | undefined;
  return {
    result,
    get operationId() { return operationId; },
    [Symbol.asyncIterator]() {
      if (started) throw new SluiceError("CONFIG_INVALID", "a chat stream can be iterated once");
      started = true;
      const begun: StageRunner = { begin: (...args) => { const stages = runner.begin(...args); operationId = stages.operationId; return stages; } };
      return streamed(begun, ctx, request, execute, settle, options?.errorMode);
    },
  };
}

/** The stream's own signal: the caller's, plus "the consumer stopped reading". */
function streamSignal(caller: AbortSignal | undefined): { signal: AbortSignal; abandon: () => void; release: () => void } {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(caller?.reason);
  if (caller?.aborted) controller.abort(caller.reason);
  else caller?.addEventListener("abort", onAbort, { once: true });
  return {
    signal: controller.signal,
    abandon: () => controller.abort(new DOMException("the consumer stopped reading the stream", "AbortError")),
    release: () => caller?.removeEventListener("abort", onAbort),
  };
}

function streamed(runner: StageRunner, ctx: CallContext, request: ChatRequest, execute: (request: ChatRequest, op: OperationContext) => AsyncIterable<StreamChunk>, settle: (r: BoundaryResult<ChatResponse>) => void, errorMode: BoundaryOptions["errorMode"]): AsyncIterableIterator<EmittedChunk> {
  const own = streamSignal(ctx.signal);
  const channel = new ChunkChannel<EmittedChunk>();
  const call = streamedCall(request.model, (input, op) => execute(chatRequestOf(ctx, request, input, true), op), (chunk) => channel.push(chunk));
  let running: Promise<void> | undefined;
  const start = (): Promise<void> => (running ??= runOperation<ChatResponse, ChatResponse>(runner, {
    operation: "chat",
    ctx: withKeys(ctx, { signal: own.signal }),
    before: "model.chat.before",
    after: "model.chat.after",
    payload: () => chatInput(ctx, request, true),
    target: { purpose: ctx.purpose ?? "action", modelId: request.model, instance: instanceOf(ctx), spaceId: ctx.spaceId },
    finalCheck: () => OK,
    served: servedAnswer(request.model),
    call,
    checkReal: (real) => checkToolCalls(real.tool_calls),
    afterPayload: (_input, real) => chatAfterPayload(request.model, real),
    // Chunks went out as they came unless the stream held them; then the after stage's answer is the one.
    output: (after, real, seen) => (call.held ? chatOutput(real, seen, after) : structuredClone(real)),
  }).then(async (r) => {
    own.release();
    settle(r);
    if (!r.ok) return channel.end({ error: originalError(errorMode, r.error)?.error ?? r.error });
    const last = call.final(r.output);
    if (last) await channel.push(last);
    channel.end();
  }));
  return {
    next: () => { void start(); return channel.take(); },
    // The consumer stopped reading: a stream not read to its end is cut (cancelled); one past its chunks settles as it would have.
    return: async () => {
      if (running && !call.read) own.abandon();
      channel.close();
      if (running) await running;
      else own.release();
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() { return this; },
  };
}
