/**
 * A streamed chat call (abi/README.md §4.1): before hooks once, chunk hooks per chunk with a
 * stable request id, holds carried between chunks, nothing emitted that a chunk hook has
 * not seen, and nothing emitted after a block. `model.chat.after` runs on every stream
 * once it ends, on the assembled answer: when one of its bindings may change the answer,
 * the text is held back until it has run (no unscanned byte is emitted); when all of them
 * only observe, or rewrite through their declared chunk twin (engine/stream-rewrite.ts),
 * chunks flow as they come and the after stage sees them read-only. It is recorded like
 * every operation (engine/recorded-stages.ts): "running" before the source is asked, the
 * real result before the first after hook, the ending before the last chunk.
 */
import { SluiceError, type ErrorData } from "../errors/sluice-error.js";
import { schemaProblem, validatePayload } from "../pipeline/validators.js";
import type { StageResult } from "../pipeline/run-steps.js";
import { CHANNELS, type Channel, type PointName } from "../pipeline/points.js";
import { answerText, chatAfterPayload, chatInput, chatOutput, chatRequestOf, checkToolCalls, type ChatRequest, type ChatResponse, type ChatUsage, type ToolCallOut } from "./chat.js";
import { instanceOf } from "./instance.js";
import { abortable, cancellation, cancelled, closeOperation } from "../engine/run-operation.js";
import type { EndPhase, StageRunner } from "../engine/stages.js";
import type { BoundaryOptions, BoundaryResult, CallContext, ExecutionFacts, HookTrace, OperationContext } from "../pipeline/call-types.js";
import { originalError } from "./error-mode.js";
import { thrownError } from "./guard.js";
import { checkedChunk, type ChunkFields } from "./model-answer.js";
import { withKeys } from "../objects/with-keys.js";

/** Chunks read ahead of the hooks at most; a slow consumer slows the source down beyond that. */
const READ_AHEAD = 64;

/** A streamed fragment of a tool call, as OpenAI-style streams send them (assembled by index). */
export interface ToolCallDelta { index: number; id?: string; type?: "function"; function?: { name?: string; arguments?: string } }
/**
 * What the service's stream yields: the host's own chunk, or an OpenAI chat-completion
 * chunk (`choices[0].delta` with `content`, `reasoning_content`, `refusal`, `tool_calls`).
 */
export interface StreamChunk {
  /** Answer text. */
  delta?: string;
  /** Reasoning text. */
  reasoning_content?: string;
  refusal?: string;
  tool_calls?: ToolCallDelta[];
  finish_reason?: string | null;
  usage?: ChatUsage;
  provider_request_id?: string;
  choices?: { index?: number; delta?: { role?: string; content?: string | null; reasoning_content?: string | null; refusal?: string | null; tool_calls?: ToolCallDelta[] }; finish_reason?: string | null; [field: string]: unknown }[];
  [field: string]: unknown;
}
/** A chunk as read, whichever shape it came in. */
interface ReadChunk {
  text: Partial<Record<Channel, string>>;
  tool_calls?: ToolCallDelta[];
  finish_reason?: string;
  usage?: ChatUsage;
  provider_request_id?: string;
}
/** One chunk of the stream as the consumer receives it, after the chunk hooks. */
export interface EmittedChunk {
  /** Answer text, as the chunk hooks let it through. */
  delta: string;
  /** Reasoning text, as the chunk hooks let it through; absent when the chunk had none. */
  reasoning_content?: string;
  /** Refusal text, as the chunk hooks let it through; absent when the chunk had none. */
  refusal?: string;
  chunk_index: number;
  is_last: boolean;
  /** The source chunk's tool_call deltas, unchanged and in order, for callers that relay the stream (chunk hooks never see or change them). */
  tool_calls?: ToolCallDelta[];
}

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
      return run(runner, ctx, request, execute, settle, options?.errorMode, (id) => { operationId = id; });
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

async function* run(runner: StageRunner, ctx: CallContext, request: ChatRequest, execute: (request: ChatRequest, op: OperationContext) => AsyncIterable<StreamChunk>, settle: (r: BoundaryResult<ChatResponse>) => void, errorMode: BoundaryOptions["errorMode"], begun: (operationId: string) => void): AsyncGenerator<EmittedChunk> {
  const t0 = performance.now();
  const purpose = ctx.purpose ?? "action";
  const own = streamSignal(ctx.signal);
  const stages = runner.begin(withKeys(ctx, { signal: own.signal }), { purpose, modelId: request.model, instance: instanceOf(ctx), spaceId: ctx.spaceId });
  begun(stages.operationId);
  const facts: ExecutionFacts = { operationId: stages.operationId, revision: stages.revision, called: false, realStatus: "not_started", attempts: 0, idempotencyKey: stages.operationId, durationMs: 0 };
  const hooks: HookTrace[] = [];
  const annotations: Record<string, unknown> = {};
  const record = (point: PointName, r: StageResult): StageResult => {
    for (const step of r.reports) { hooks.push(withKeys(step, { point })); Object.assign(annotations, step.annotations); }
    return r;
  };
  const calls: ToolCallOut[] = [];
  // What was emitted per channel; a channel that never carried text stays undefined.
  const texts: Partial<Record<Channel, string>> = {};
  let finish_reason = "stop";
  let usage: ChatUsage = { input_tokens: 0, output_tokens: 0 };
  let provider_request_id: string | undefined;
  // Each channel's text is its own stream to the chunk hooks: holds never cross channels.
  const holds: Record<Channel, readonly string[]> = { content: [], reasoning: [], refusal: [] };
  let index = 0;
  let settled = false;
  let phase: "before" | "operation" | "after" = "before";
  let source: AsyncIterator<unknown> | undefined;
  let sourceEnded = false;

  // What iterating throws: the SluiceError, or (errorMode "original") the source's own error.
  const end = async (phase: EndPhase, error: ErrorData | null, outcome: string, output?: ChatResponse): Promise<unknown> => {
    settled = true;
    await closeOperation(stages, { operation: "chat", t0, facts, hooks, record }, phase, error, outcome, output);
    own.release();
    if (error) {
      const err = new SluiceError(error.code, error.message, error.details ?? {});
      settle({ ok: false, error: err, facts, hooks, annotations });
      const original = originalError(errorMode, err);
      return original ? original.error : err;
    }
    settle({ ok: true, output: output!, facts, hooks, annotations });
    return null;
  };
  // The host stops waiting on a source that ignores its signal: its return is not awaited.
  const release = (): void => { if (source && !sourceEnded) void Promise.resolve().then(() => source!.return?.()).catch(() => undefined); };

  try {
    const unrecorded = await stages.opened("chat", "model.chat.before", "model.chat.after");
    if (unrecorded) throw await end("before", unrecorded, "failed");
    const input = chatInput(ctx, request, true);
    const valid = validatePayload("model.chat.before", input);
    if (!valid.ok) throw await end("before", valid.error, "failed");
    const before = record("model.chat.before", await stages.run("model.chat.before", input));
    if (before.failure) { const failure = cancellation(before.failure, stages.signal); throw await end("before", failure, isCancel(failure) ? "cancelled" : "failed"); }
    if (before.stop?.kind === "reject") {
      throw await end("before", { code: "HOOK_REJECTED", message: `rejected by binding ${before.stop.bindingId}: ${before.stop.code} ${before.stop.reason}`, details: { bindingId: before.stop.bindingId, hookCode: before.stop.code, reason: before.stop.reason } }, "rejected");
    }

    if (before.stop?.kind === "short_circuit") {
      const served = chatAfterPayload(request.model, (before.stop.result ?? {}) as Partial<ChatResponse>);
      const problem = schemaProblem("model.chat.after", served);
      if (problem !== null) throw await end("before", { code: "OUTPUT_INVALID", message: `short-circuit result is not a chat response: ${problem}` }, "failed");
      facts.shortCircuitedBy = before.stop.bindingId;
      const chunk: StreamChunk = {
        delta: answerText(served.content), tool_calls: (served.tool_calls as ToolCallOut[]).map((c, i) => ({ index: i, id: c.id, function: c.function })), finish_reason: String(served.finish_reason), usage: served.usage as ChatUsage,
        ...(typeof served.reasoning_content === "string" ? { reasoning_content: served.reasoning_content } : {}),
        ...(typeof served.refusal === "string" ? { refusal: served.refusal } : {}),
      };
      source = (async function* () { yield chunk; })();
    } else {
      const refused = await stages.calling("model.chat.before", before.payload);
      if (refused) throw await end("before", refused, "failed");
      facts.called = true;
      facts.realStatus = "running";
      facts.attempts = 1;
      try {
        source = execute(chatRequestOf(ctx, request, before.payload, true), { signal: stages.signal, idempotencyKey: facts.idempotencyKey, attempt: 1, operationId: facts.operationId, artifact: (a) => { (facts.artifacts ??= []).push(structuredClone(a)); } })[Symbol.asyncIterator]();
      } catch (err) {
        facts.realStatus = "failed";
        throw await end("operation", { code: "OPERATION_FAILED", message: `chat stream failed to start: ${(err as Error)?.message ?? String(err)}`, details: { cause: err } }, "failed");
      }
    }
    phase = "operation";
    // An after binding that may change the answer holds the text back until it has run,
    // unless its chunk twin is its declared stream rewrite (then it judges read-only).
    const plan = stages.streamPlan(before);
    const hold = plan.hold;
    const src = source;

    // What a chunk tells about the whole answer, whatever the hooks do with its text.
    const absorb = (chunk: ReadChunk): void => {
      for (const d of chunk.tool_calls ?? []) {
        const call = (calls[d.index] ??= { id: "", type: "function", function: { name: "", arguments: "" } });
        if (d.id) call.id = d.id;
        if (d.function?.name) call.function.name += d.function.name;
        if (d.function?.arguments) call.function.arguments += d.function.arguments;
      }
      if (chunk.finish_reason) finish_reason = chunk.finish_reason;
      if (chunk.usage) usage = chunk.usage;
      if (chunk.provider_request_id) provider_request_id = chunk.provider_request_id;
    };
    // One chunk's stage result on one channel: the text it lets through, or the error that ends the stream.
    const outcomeOf = (r: StageResult, channel: Channel, chunkIndex: number): { emit: string } | { error: ErrorData } => {
      record("model.chat.chunk", r);
      if (r.failure) return { error: cancellation(r.failure, stages.signal) };
      if (r.stop?.kind === "block") return { error: { code: "HOOK_BLOCKED", message: `stream blocked by binding ${r.stop.bindingId}: ${r.stop.code} ${r.stop.reason}`, details: { bindingId: r.stop.bindingId, hookCode: r.stop.code, reason: r.stop.reason, chunkIndex, channel } } };
      holds[channel] = r.holds ?? [];
      const emitted = String(r.payload.delta);
      texts[channel] = (texts[channel] ?? "") + emitted;
      return { emit: emitted };
    };
    let received = 0;
    const next = async (): Promise<IteratorResult<ReadChunk> | { error: ErrorData }> => {
      try {
        const item = await abortable(src.next(), stages.signal);
        if (item.done) return { done: true, value: undefined };
        const shape = checkedChunk(item.value, received++);
        if (!shape.ok) return { error: shape.error };
        return { done: false, value: normalised(shape.fields) };
      } catch (err) {
        return { error: stages.signal.aborted ? cancelled(stages.signal) : { code: "OPERATION_FAILED", message: `chat stream failed: ${(err as Error)?.message ?? String(err)}`, details: { cause: err } } };
      }
    };
    const stop = async (error: ErrorData, phase: "operation" | "after", outcome: string): Promise<unknown> => {
      release();
      return end(phase, error, outcome);
    };
    // Reading runs ahead of the hooks (up to READ_AHEAD chunks): a chunk is handed to the
    // hooks as soon as it arrives, never held back waiting for the next one, and chunks that
    // arrived while the hooks were busy go through together, in one worker task. When the
    // source ends, one last chunk with no new text and is_last set flushes every hold and
    // lets metering hooks settle.
    const buffered: (IteratorResult<ReadChunk> | { error: ErrorData })[] = [];
    let ended = false;
    let reading = false;
    let wake: (() => void) | undefined;
    const readAhead = async (): Promise<void> => {
      if (reading) return;
      reading = true;
      while (!ended && buffered.length < READ_AHEAD) {
        const item = await next();
        buffered.push(item);
        if ("error" in item || item.done) ended = true;
        if (!("error" in item) && item.done) sourceEnded = true;
        wake?.();
      }
      reading = false;
    };
    const take = async (): Promise<(IteratorResult<ReadChunk> | { error: ErrorData })[]> => {
      if (buffered.length === 0) {
        const arrived = new Promise<void>((resolve) => { wake = resolve; });
        void readAhead();
        await arrived;
        wake = undefined;
      }
      const items = buffered.splice(0, buffered.length);
      void readAhead();
      return items;
    };
    // The last chunk is emitted only once the call has settled (after stage included).
    let last: EmittedChunk | undefined;
    for (let finished = false; !finished;) {
      const batch: { chunk: ReadChunk; isLast: boolean }[] = [];
      let sourceError: ErrorData | undefined;
      for (const item of await take()) {
        if ("error" in item) { sourceError = item.error; break; }
        if (item.done) { batch.push({ chunk: { text: {} }, isLast: true }); finished = true; break; }
        batch.push({ chunk: item.value, isLast: false });
      }
      if (batch.length > 0) {
        for (const b of batch) absorb(b.chunk);
        const emitted = batch.map((b, j): EmittedChunk => ({ delta: "", chunk_index: index + j, is_last: b.isLast, ...(b.chunk.tool_calls?.length ? { tool_calls: b.chunk.tool_calls } : {}) }));
        // The answer text runs through the chunk hooks for every chunk, as in ABI 1.0; reasoning
        // and refusal text run for the chunks that carry some, and at the end only to flush a
        // hold (so a 1.0 hook sees is_last once per stream unless it held reasoning text).
        // A block or failure at chunk j ends the stream: the later channels still run for
        // the chunks before j, which are emitted whole; nothing from j on is.
        let failed: { j: number; error: ErrorData } | undefined;
        const runRows = async (channel: Channel, rows: { b: { chunk: ReadChunk; isLast: boolean }; j: number }[]): Promise<void> => {
          if (rows.length === 0) return;
          const payloads = rows.map(({ b, j }) => ({
            request_id: stages.operationId, chunk_index: index + j, is_last: b.isLast, delta: b.chunk.text[channel] ?? "", model: request.model,
            ...(channel === "content" ? {} : { channel }),
          }));
          const results = await stages.chunks(payloads, holds[channel]);
          for (const [k, r] of results.entries()) {
            const { j } = rows[k]!;
            const out = outcomeOf(r, channel, index + j);
            if ("error" in out) { failed = { j, error: out.error }; return; }
            const e = emitted[j]!;
            if (channel === "content") e.delta = out.emit;
            else {
              const key = channel === "reasoning" ? "reasoning_content" : "refusal";
              if (out.emit !== "" || batch[j]!.chunk.text[channel] !== undefined) e[key] = (e[key] ?? "") + out.emit;
            }
          }
        };
        const open = (j: number): boolean => failed === undefined || j < failed.j;
        for (const channel of CHANNELS) {
          const rows = batch.map((b, j) => ({ b, j })).filter(({ b, j }) => open(j) && (channel === "content" || (!b.isLast && b.chunk.text[channel] !== undefined)));
          await runRows(channel, rows);
          // The end flushes a channel other than the answer text only when a hook still holds some of it.
          const lastRow = batch.length - 1;
          if (channel !== "content" && batch[lastRow]!.isLast && open(lastRow) && holds[channel].some((h) => h !== "")) await runRows(channel, [{ b: batch[lastRow]!, j: lastRow }]);
        }
        index += batch.length;
        for (const e of failed ? emitted.slice(0, failed.j) : emitted) {
          if (e.is_last) last = e;
          else if (!hold && (e.delta !== "" || e.tool_calls || e.reasoning_content || e.refusal)) yield e;
        }
        if (failed) {
          ended = true;
          const cut = isCancel(failed.error) && !sourceEnded;
          facts.realStatus = !facts.called ? facts.realStatus : cut ? "unknown" : "succeeded";
          throw await stop(failed.error, cut ? "operation" : "after", failed.error.code === "HOOK_BLOCKED" ? "blocked" : isCancel(failed.error) ? "cancelled" : "failed");
        }
      }
      if (sourceError) {
        const failed = sourceError.code === "OPERATION_FAILED";
        facts.realStatus = failed ? "failed" : "unknown";
        throw await stop(sourceError, "operation", failed ? "failed" : "cancelled");
      }
    }
    if (facts.called) facts.realStatus = "succeeded";
    const toolCalls = checkToolCalls(calls);
    if (!toolCalls.ok) throw await end("operation", toolCalls.error, "failed");
    const real: ChatResponse = {
      content: texts.content ?? "", tool_calls: calls, finish_reason, usage,
      ...(texts.reasoning !== undefined ? { reasoning_content: texts.reasoning } : {}),
      ...(texts.refusal !== undefined ? { refusal: texts.refusal } : {}),
      ...(provider_request_id !== undefined ? { provider_request_id } : {}),
    };
    facts.realResult = structuredClone(real);

    // The after stage sees the whole answer; what was already emitted stays as it was.
    phase = "after";
    const seen = chatAfterPayload(request.model, real);
    await stages.called("model.chat.after", real, seen, before, facts);
    const after = record("model.chat.after", await stages.runAfter("model.chat.after", seen, before, { readOnly: plan.readOnly }));
    if (after.failure) { const failure = cancellation(after.failure, stages.signal); throw await end("after", failure, isCancel(failure) ? "cancelled" : "failed"); }
    if (after.stop?.kind === "block") {
      throw await end("after", { code: "HOOK_BLOCKED", message: `blocked by binding ${after.stop.bindingId}: ${after.stop.code} ${after.stop.reason}`, details: { bindingId: after.stop.bindingId, hookCode: after.stop.code, reason: after.stop.reason } }, "blocked");
    }
    // Chunks went out as they came unless the stream held them; then the after stage's answer is the one.
    const output = hold ? chatOutput(real, seen, after.payload) : real;
    await end(null, null, facts.shortCircuitedBy ? "short_circuited" : "succeeded", output);
    if (hold) {
      // The held answer goes out at once, as the after stage left it, with the assembled tool calls.
      const deltas = calls.map((c, i): ToolCallDelta => ({ index: i, id: c.id, function: { name: c.function.name, arguments: c.function.arguments } }));
      yield {
        delta: answerText(output.content), chunk_index: last?.chunk_index ?? index, is_last: true,
        ...(typeof output.reasoning_content === "string" ? { reasoning_content: output.reasoning_content } : {}),
        ...(typeof output.refusal === "string" ? { refusal: output.refusal } : {}),
        ...(deltas.length ? { tool_calls: deltas } : {}),
      };
    } else if (last) {
      yield last;
    }
  } catch (err) {
    // Already settled: the error that ended the stream, thrown on purpose. Otherwise the
    // input could not be read (before) or the host failed: settle with a catalogue code.
    if (settled) throw err;
    const error = thrownError(err, phase === "before");
    throw await end(phase, error.toData(), "failed");
  } finally {
    // Reached without settling: the consumer stopped reading (the iterator's return).
    if (!settled) {
      own.abandon();
      release();
      if (facts.called && !sourceEnded) facts.realStatus = "unknown";
      await end(phase, cancelled(own.signal), "cancelled");
    }
  }
}

/** A checked chunk's fields as the stream carries them. */
function normalised(c: ChunkFields): ReadChunk {
  const text: Partial<Record<Channel, string>> = {};
  if (typeof c.delta === "string") text.content = c.delta;
  if (typeof c.reasoning_content === "string") text.reasoning = c.reasoning_content;
  if (typeof c.refusal === "string") text.refusal = c.refusal;
  return {
    text,
    ...(Array.isArray(c.tool_calls) ? { tool_calls: c.tool_calls as ToolCallDelta[] } : {}),
    ...(typeof c.finish_reason === "string" ? { finish_reason: c.finish_reason } : {}),
    ...(typeof c.usage === "object" && c.usage !== null ? { usage: c.usage as ChatUsage } : {}),
    ...(typeof c.provider_request_id === "string" ? { provider_request_id: c.provider_request_id } : {}),
  };
}

function isCancel(error: ErrorData): boolean {
  return error.code === "CALL_CANCELLED" || error.code === "DEADLINE_EXCEEDED";
}
