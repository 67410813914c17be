/**
 * A streamed chat call's real call, as a strategy of the one lifecycle
 * (engine/run-operation.ts): it reads the source ahead of the hooks, runs the chunk hooks per
 * chunk with a stable request id and the holds carried between chunks, hands each chunk to
 * the consumer through the chunk channel (nothing a chunk hook has not seen, nothing after a
 * block), and assembles the answer the after stage then sees. When an after binding may
 * change the answer, the text is held back until it has run (no unscanned byte is emitted);
 * when all of them only observe, or rewrite through their declared chunk twin
 * (engine/stream-rewrite.ts), chunks flow as they come and the after stage sees them read-only.
 */
import type { ErrorData } from "../errors/sluice-error.js";
import type { StageResult } from "../pipeline/run-steps.js";
import { CHANNELS, type Channel } from "../pipeline/points.js";
import type { OperationContext } from "../engine/call-types.js";
import type { CallEnd, RealCall } from "../engine/real-call.js";
import { abortable, cancellation, cancelled, isCancel, operationFailed, stopError } from "../engine/endings.js";
import { answerText, type ChatResponse, type ChatUsage, type ToolCallOut } from "./chat.js";
import { checkedChunk, type ChunkFields } from "./model-answer.js";

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
  /**
   * The channels whose chunk hooks still hold text back after this chunk (a later chunk
   * releases it, the last one at the latest): a relay keeps a block of that text open until then.
   */
  holding?: Channel[];
}

/** The streamed call, and what goes out once the operation has settled. */
export interface StreamedCall extends RealCall<ChatResponse> {
  /** Whether the answer is held back for the after stage (then the after stage's answer goes out at the end). */
  readonly held: boolean;
  /** Whether every chunk has been read and handed over (a consumer that stops before then cuts the stream). */
  readonly read: boolean;
  /** The chunk that goes out once the operation has settled: the held answer as the after stage left it, or the stream's last chunk. */
  final(output: ChatResponse): EmittedChunk | undefined;
}

/**
 * `open` starts the source on the final input; `emit` hands a chunk to the consumer and
 * answers false when the consumer stopped reading.
 */
export function streamedCall(model: string, open: (input: Record<string, unknown>, op: OperationContext) => AsyncIterable<StreamChunk>, emit: (chunk: EmittedChunk) => Promise<boolean>): StreamedCall {
  let held = false;
  let read = false;
  // The stream's last chunk goes out only once the call has settled (after stage included).
  let last: EmittedChunk | undefined;
  let index = 0;
  const calls: ToolCallOut[] = [];
  return {
    get held() { return held; },
    get read() { return read; },
    final(output) {
      if (!held) return last;
      // The held answer goes out at once, as the after stage left it, with the assembled tool calls.
      const deltas = calls.map((c, i): ToolCallDelta => ({ index: i, id: c.id, function: { name: c.function.name, arguments: c.function.arguments } }));
      return {
        delta: answerText(output.content), chunk_index: last?.chunk_index ?? index, is_last: true,
        ...(typeof output.reasoning_content === "string" ? { reasoning_content: output.reasoning_content } : {}),
        ...(typeof output.refusal === "string" ? { refusal: output.refusal } : {}),
        ...(deltas.length ? { tool_calls: deltas } : {}),
      };
    },
    async run(input, { stages, facts, before, record, op }, served): Promise<CallEnd<ChatResponse>> {
      let source: AsyncIterator<unknown>;
      if (served) {
        source = servedSource(served.real);
      } else {
        facts.attempts = 1;
        try {
          source = open(input, op(1))[Symbol.asyncIterator]();
        } catch (err) {
          read = true;
          return { kind: "ended", error: operationFailed("chat stream failed to start", err), realStatus: "failed", phase: "operation" };
        }
      }
      const plan = stages.streamPlan(before);
      held = plan.hold;
      const reader = readAhead(source, stages.signal);
      // What was emitted per channel; a channel that never carried text stays undefined.
      const texts: Partial<Record<Channel, string>> = {};
      let finish_reason = "stop";
      let usage: ChatUsage = { input_tokens: 0, output_tokens: 0 };
      let provider_request_id: string | undefined;
      // Each channel's text is its own stream to the chunk hooks: holds never cross channels.
      const holds: Record<Channel, readonly string[]> = { content: [], reasoning: [], refusal: [] };
      // The ending of a stream cut short: a cancellation leaves the real call's status unknown unless the source had ended.
      const ended = (error: ErrorData, phase: "operation" | "after"): CallEnd<ChatResponse> => {
        const cut = isCancel(error) && !reader.ended;
        return { kind: "ended", error, phase: cut ? "operation" : phase, realStatus: !facts.called ? facts.realStatus : cut ? "unknown" : "succeeded" };
      };
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
        if (r.stop?.kind === "block") return { error: stopError(r.stop, { chunkIndex, channel }) };
        holds[channel] = r.holds ?? [];
        const emitted = String(r.payload.delta);
        texts[channel] = (texts[channel] ?? "") + emitted;
        return { emit: emitted };
      };
      try {
        for (let finished = false; !finished;) {
          const batch: { chunk: ReadChunk; isLast: boolean }[] = [];
          let sourceError: ErrorData | undefined;
          // Chunks that arrived while the hooks were busy go through together, in one worker
          // task. When the source ends, one last chunk with no new text and is_last set
          // flushes every hold and lets metering hooks settle.
          for (const item of await reader.take()) {
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
            // What each channel's hooks hold after each chunk of the batch they ran on (a chunk a channel skipped keeps the hold before it).
            const heldBefore = { ...holds };
            const heldAfter: Record<Channel, (readonly string[])[]> = { content: [], reasoning: [], refusal: [] };
            const runRows = async (channel: Channel, rows: { b: { chunk: ReadChunk; isLast: boolean }; j: number }[]): Promise<void> => {
              if (rows.length === 0) return;
              const payloads = rows.map(({ b, j }) => ({
                request_id: stages.operationId, chunk_index: index + j, is_last: b.isLast, delta: b.chunk.text[channel] ?? "", model,
                ...(channel === "content" ? {} : { channel }),
              }));
              const results = await stages.chunks(payloads, holds[channel]);
              for (const [k, r] of results.entries()) {
                const { j } = rows[k]!;
                const out = outcomeOf(r, channel, index + j);
                if ("error" in out) { failed = { j, error: out.error }; return; }
                const e = emitted[j]!;
                heldAfter[channel][j] = r.holds ?? [];
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
            for (const channel of CHANNELS) {
              let held = heldBefore[channel];
              for (const [j, e] of emitted.entries()) {
                held = heldAfter[channel][j] ?? held;
                if (held.some((h) => h !== "")) e.holding = [...(e.holding ?? []), channel];
              }
            }
            index += batch.length;
            for (const e of failed ? emitted.slice(0, failed.j) : emitted) {
              if (e.is_last) last = e;
              else if (!held && (e.delta !== "" || e.tool_calls || e.reasoning_content || e.refusal)) {
                if (!(await emit(e))) return ended(cancelled(stages.signal), "operation");
              }
            }
            if (failed) return ended(failed.error, "after");
          }
          if (sourceError) {
            const failed = sourceError.code === "OPERATION_FAILED";
            return { kind: "ended", error: sourceError, realStatus: failed ? "failed" : "unknown", phase: "operation" };
          }
        }
        const real: ChatResponse = {
          content: texts.content ?? "", tool_calls: calls, finish_reason, usage,
          ...(texts.reasoning !== undefined ? { reasoning_content: texts.reasoning } : {}),
          ...(texts.refusal !== undefined ? { refusal: texts.refusal } : {}),
          ...(provider_request_id !== undefined ? { provider_request_id } : {}),
        };
        return { kind: "real", real, readOnly: plan.readOnly };
      } finally {
        read = true;
        reader.release();
      }
    },
  };
}

/** What a before hook served, as the one chunk of a stream. */
function servedSource(real: ChatResponse): AsyncIterator<unknown> {
  const chunk: StreamChunk = {
    delta: answerText(real.content), tool_calls: real.tool_calls.map((c, i) => ({ index: i, id: c.id, function: c.function })), finish_reason: String(real.finish_reason), usage: real.usage,
    ...(typeof real.reasoning_content === "string" ? { reasoning_content: real.reasoning_content } : {}),
    ...(typeof real.refusal === "string" ? { refusal: real.refusal } : {}),
  };
  return (async function* () { yield chunk; })();
}

type Read = IteratorResult<ReadChunk> | { error: ErrorData };

/**
 * Reading runs ahead of the hooks (up to READ_AHEAD chunks): a chunk is handed to the hooks
 * as soon as it arrives, never held back waiting for the next one. A source that ignores the
 * signal is let go without waiting: its return is not awaited.
 */
function readAhead(source: AsyncIterator<unknown>, signal: AbortSignal): { take(): Promise<Read[]>; release(): void; readonly ended: boolean } {
  const buffered: Read[] = [];
  let done = false;
  let sourceEnded = false;
  let reading = false;
  let wake: (() => void) | undefined;
  let received = 0;
  const next = async (): Promise<Read> => {
    try {
      const item = await abortable(source.next(), signal);
      if (item.done) return { done: true, value: undefined };
      const shape = checkedChunk(item.value, received++);
      if (!shape.ok) return { error: shape.error };
      return { done: false, value: normalised(shape.fields) };
    } catch (err) {
      return { error: signal.aborted ? cancelled(signal) : operationFailed("chat stream failed", err) };
    }
  };
  const fill = async (): Promise<void> => {
    if (reading) return;
    reading = true;
    while (!done && buffered.length < READ_AHEAD) {
      const item = await next();
      buffered.push(item);
      if ("error" in item || item.done) done = true;
      if (!("error" in item) && item.done) sourceEnded = true;
      wake?.();
    }
    reading = false;
  };
  return {
    get ended() { return sourceEnded; },
    async take() {
      if (buffered.length === 0) {
        const arrived = new Promise<void>((resolve) => { wake = resolve; });
        void fill();
        await arrived;
        wake = undefined;
      }
      const items = buffered.splice(0, buffered.length);
      void fill();
      return items;
    },
    release() {
      done = true;
      if (!sourceEnded) void Promise.resolve().then(() => source.return?.()).catch(() => undefined);
    },
  };
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
