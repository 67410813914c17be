/**
 * A streamed chat call (seed 004 §2.3): before hooks once, chunk hooks per chunk with a
 * stable request id, holds carried between chunks, nothing emitted that a chunk hook has
 * not seen, and nothing emitted after a block. `model.chat.after` runs on every stream
 * once it ends, on the assembled answer: when one of its bindings may change the answer,
 * the text is held back until it has run (no unscanned byte is emitted); when all of them
 * only observe, chunks flow as they come and the after stage sees them read-only.
 */
import { SluiceError, type ErrorData } from "../errors/sluice-error.js";
import { validatePayload } from "../pipeline/validators.js";
import type { StageResult } from "../pipeline/run-steps.js";
import type { PointName } from "../pipeline/points.js";
import { chatAfterPayload, chatInput, chatRequestOf, checkToolCalls, type ChatRequest, type ChatResponse, type ToolCallOut } from "./chat.js";
import { instanceOf } from "./instance.js";
import { abortable, cancellation, cancelled } from "./operation.js";
import type { StageRunner } from "./stage-runner.js";
import type { BoundaryResult, CallContext, ExecutionFacts, HookTrace, OperationContext } from "./types.js";
import { chunkProblem } from "./model-answer.js";
import { OK } from "../pipeline/result.js";
import { schemaProblem } from "../pipeline/validators.js";

/** Chunks read ahead of the hooks at most; a slow consumer slows the source down beyond that. */
const READ_AHEAD = 64;

/** A streamed fragment of a tool call, as OpenAI-style streams send them (assembled by index). */
export interface ToolCallDelta { index: number; id?: string; function?: { name?: string; arguments?: string } }
/** One chunk of the wrapped model's stream, as the service's stream function yields it. */
export interface StreamChunk {
  delta?: string;
  tool_calls?: ToolCallDelta[];
  finish_reason?: string;
  usage?: { input_tokens: number; output_tokens: number };
  provider_request_id?: string;
}
/** One chunk of the stream as the consumer receives it, after the chunk hooks. */
export interface EmittedChunk {
  delta: string;
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
}

export function chatStream(runner: StageRunner, ctx: CallContext, request: ChatRequest, execute: (request: ChatRequest, op: OperationContext) => AsyncIterable<StreamChunk>): ChatStream {
  let settle!: (r: BoundaryResult<ChatResponse>) => void;
  const result = new Promise<BoundaryResult<ChatResponse>>((resolve) => { settle = resolve; });
  let started = false;
  return {
    result,
    [Symbol.asyncIterator]() {
      if (started) throw new SluiceError("CONFIG_INVALID", "a chat stream can be iterated once");
      started = true;
      return run(runner, ctx, request, execute, settle);
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

async function* run(runner: StageRunner, ctx: CallContext, request: ChatRequest, execute: (request: ChatRequest, op: OperationContext) => AsyncIterable<StreamChunk>, settle: (r: BoundaryResult<ChatResponse>) => void): AsyncGenerator<EmittedChunk> {
  const t0 = performance.now();
  const purpose = ctx.purpose ?? "action";
  const own = streamSignal(ctx.signal);
  const stages = runner.begin({ ...ctx, signal: own.signal }, { purpose, modelId: request.model, instance: instanceOf(ctx), spaceId: ctx.spaceId });
  const facts: ExecutionFacts = { operationId: stages.operationId, revision: stages.revision, called: false, realStatus: "not_started", attempts: 0, idempotencyKey: stages.operationId, durationMs: 0 };
  const hooks: HookTrace[] = [];
  const annotations: Record<string, unknown> = {};
  const record = (point: PointName, r: StageResult): StageResult => {
    for (const step of r.reports) { hooks.push({ ...step, point }); Object.assign(annotations, step.annotations); }
    return r;
  };
  const calls: ToolCallOut[] = [];
  let text = "";
  let finish_reason = "stop";
  let usage = { input_tokens: 0, output_tokens: 0 };
  let provider_request_id: string | undefined;
  let holds: readonly string[] = [];
  let index = 0;
  let settled = false;
  let phase: "before" | "operation" | "after" = "before";
  let source: AsyncIterator<StreamChunk> | undefined;
  let sourceEnded = false;

  const end = async (phase: "before" | "operation" | "after" | null, error: ErrorData | null, outcome: string, output?: ChatResponse): Promise<SluiceError | null> => {
    settled = true;
    if (error) record("operation.error", await stages.diagnostic("operation.error", { operation: "chat", phase: phase ?? "operation", error: { code: error.code, message: error.message }, real_status: facts.realStatus, reached_binding: hooks.at(-1)?.bindingId ?? null }));
    record("operation.finally", await stages.diagnostic("operation.finally", { operation: "chat", real_status: facts.realStatus, outcome }));
    facts.durationMs = performance.now() - t0;
    stages.end();
    own.release();
    if (error) {
      const err = new SluiceError(error.code, error.message, error.details ?? {});
      settle({ ok: false, error: err, facts, hooks, annotations });
      return err;
    }
    settle({ ok: true, output: output!, facts, hooks, annotations });
    return null;
  };
  // The host stops waiting on a source that ignores its signal: its return is not awaited.
  const release = (): void => { if (source && !sourceEnded) void Promise.resolve().then(() => source!.return?.()).catch(() => undefined); };

  try {
    const valid = validatePayload("model.chat.before", chatInput(ctx, request, true));
    if (!valid.ok) throw await end("before", valid.error, "failed");
    const before = record("model.chat.before", await stages.run("model.chat.before", chatInput(ctx, request, true)));
    if (before.failure) { const failure = cancellation(before.failure, stages.signal); throw await end("before", failure, isCancel(failure) ? "cancelled" : "failed"); }
    if (before.stop?.kind === "reject") {
      throw await end("before", { code: "HOOK_REJECTED", message: `rejected by binding ${before.stop.bindingId}: ${before.stop.code} ${before.stop.reason}`, details: { bindingId: before.stop.bindingId, hookCode: before.stop.code, reason: before.stop.reason } }, "rejected");
    }

    if (before.stop?.kind === "short_circuit") {
      const served = chatAfterPayload(request.model, (before.stop.result ?? {}) as Partial<ChatResponse>);
      const problem = schemaProblem("model.chat.after", served);
      if (problem !== null) throw await end("before", { code: "OUTPUT_INVALID", message: `short-circuit result is not a chat response: ${problem}` }, "failed");
      facts.shortCircuitedBy = before.stop.bindingId;
      const chunk: StreamChunk = { delta: String(served.content ?? ""), tool_calls: (served.tool_calls as ToolCallOut[]).map((c, i) => ({ index: i, id: c.id, function: c.function })), finish_reason: String(served.finish_reason), usage: served.usage as StreamChunk["usage"] & object };
      source = (async function* () { yield chunk; })();
    } else {
      facts.called = true;
      facts.realStatus = "running";
      facts.attempts = 1;
      source = execute(chatRequestOf(before.payload), { signal: stages.signal, idempotencyKey: facts.idempotencyKey, attempt: 1, operationId: facts.operationId, artifact: (a) => { (facts.artifacts ??= []).push(structuredClone(a)); } })[Symbol.asyncIterator]();
    }
    phase = "operation";
    // An after binding that may change the answer: hold the text back until it has run.
    const hold = stages.outputMayChange("model.chat.after");
    const src = source;

    // What a chunk tells about the whole answer, whatever the hooks do with its text.
    const absorb = (chunk: StreamChunk): void => {
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
    // One chunk's stage result: what may be emitted, or the error that ends the stream.
    const outcomeOf = (r: StageResult, chunk: StreamChunk, isLast: boolean): { emit: EmittedChunk } | { error: ErrorData } => {
      record("model.chat.chunk", r);
      if (r.failure) return { error: cancellation(r.failure, stages.signal) };
      if (r.stop?.kind === "block") return { error: { code: "HOOK_BLOCKED", message: `stream blocked by binding ${r.stop.bindingId}: ${r.stop.code} ${r.stop.reason}`, details: { bindingId: r.stop.bindingId, hookCode: r.stop.code, reason: r.stop.reason, chunkIndex: index } } };
      holds = r.holds ?? [];
      const emitted = String(r.payload.delta);
      text += emitted;
      const deltas = chunk.tool_calls?.length ? { tool_calls: chunk.tool_calls } : {};
      return { emit: { delta: emitted, chunk_index: index++, is_last: isLast, ...deltas } };
    };
    let received = 0;
    const next = async (): Promise<IteratorResult<StreamChunk> | { error: ErrorData }> => {
      try {
        const item = await abortable(src.next(), stages.signal);
        const shape = item.done ? OK : chunkProblem(item.value, received++);
        return shape.ok ? item : { error: shape.error };
      } catch (err) {
        return { error: stages.signal.aborted ? cancelled(stages.signal) : { code: "OPERATION_FAILED", message: `chat stream failed: ${(err as Error)?.message ?? String(err)}`, details: { cause: err } } };
      }
    };
    const stop = async (error: ErrorData, phase: "operation" | "after", outcome: string): Promise<SluiceError> => {
      release();
      return (await end(phase, error, outcome))!;
    };
    // Reading runs ahead of the hooks (up to READ_AHEAD chunks): a chunk is handed to the
    // hooks as soon as it arrives, never held back waiting for the next one, and chunks that
    // arrived while the hooks were busy go through together, in one worker task. When the
    // source ends, one last chunk with no new text and is_last set flushes every hold and
    // lets metering hooks settle.
    const buffered: (IteratorResult<StreamChunk> | { error: ErrorData })[] = [];
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
    const take = async (): Promise<(IteratorResult<StreamChunk> | { error: ErrorData })[]> => {
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
      const batch: { chunk: StreamChunk; isLast: boolean }[] = [];
      let sourceError: ErrorData | undefined;
      for (const item of await take()) {
        if ("error" in item) { sourceError = item.error; break; }
        if (item.done) { batch.push({ chunk: {}, isLast: true }); finished = true; break; }
        batch.push({ chunk: item.value, isLast: false });
      }
      if (batch.length > 0) {
        for (const b of batch) absorb(b.chunk);
        const payloads = batch.map((b, j) => ({ request_id: stages.operationId, chunk_index: index + j, is_last: b.isLast, delta: b.chunk.delta ?? "", model: request.model }));
        const results = await stages.chunks(payloads, holds);
        for (const [j, r] of results.entries()) {
          const out = outcomeOf(r, batch[j]!.chunk, batch[j]!.isLast);
          if ("error" in out) {
            ended = true;
            const cut = isCancel(out.error) && !sourceEnded;
            facts.realStatus = !facts.called ? facts.realStatus : cut ? "unknown" : "succeeded";
            throw await stop(out.error, cut ? "operation" : "after", out.error.code === "HOOK_BLOCKED" ? "blocked" : isCancel(out.error) ? "cancelled" : "failed");
          }
          if (out.emit.is_last) last = out.emit;
          else if (!hold && (out.emit.delta !== "" || out.emit.tool_calls)) yield out.emit;
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
    const real: ChatResponse = { content: text, tool_calls: calls, finish_reason, usage, ...(provider_request_id !== undefined ? { provider_request_id } : {}) };
    facts.realResult = structuredClone(real);

    // The after stage sees the whole answer; what was already emitted stays as it was.
    phase = "after";
    const after = record("model.chat.after", await stages.runAfter("model.chat.after", chatAfterPayload(request.model, real), before));
    if (after.failure) { const failure = cancellation(after.failure, stages.signal); throw await end("after", failure, isCancel(failure) ? "cancelled" : "failed"); }
    if (after.stop?.kind === "block") {
      throw await end("after", { code: "HOOK_BLOCKED", message: `blocked by binding ${after.stop.bindingId}: ${after.stop.code} ${after.stop.reason}`, details: { bindingId: after.stop.bindingId, hookCode: after.stop.code, reason: after.stop.reason } }, "blocked");
    }
    const content = hold ? (after.payload.content as string | null) : text;
    await end(null, null, facts.shortCircuitedBy ? "short_circuited" : "succeeded", { ...real, content: hold ? content : text });
    if (hold) {
      // The held answer goes out at once, as the after stage left it, with the assembled tool calls.
      const deltas = calls.map((c, i): ToolCallDelta => ({ index: i, id: c.id, function: { name: c.function.name, arguments: c.function.arguments } }));
      yield { delta: content ?? "", chunk_index: last?.chunk_index ?? index, is_last: true, ...(deltas.length ? { tool_calls: deltas } : {}) };
    } else if (last) {
      yield last;
    }
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

function isCancel(error: ErrorData): boolean {
  return error.code === "CALL_CANCELLED" || error.code === "DEADLINE_EXCEEDED";
}
