import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import type { BoundaryResult, ChatResponse, EmittedChunk } from "../../index.js";
import { answerOf, pieceOf } from "../shared/host-chat.js";
import { finishOf, sdkUsage } from "./answer.js";
import { partWriter, type StreamLog } from "./stream.js";
import { replay } from "./stream-replay.js";

/**
 * The AI SDK stream the caller reads: the host's effective chunks as stream parts, pulled
 * by the consumer (each pull hands on at least one part, or ends the stream), then the
 * finish. From a called model, its own parts replayed around the hooked text (see
 * stream-replay.ts) and its own finish; from a served answer, parts written from the
 * answer. A failure ends it with an error part; a consumer that cancels cancels the
 * host's stream (and so the model's).
 */
export function hookedParts(chunks: AsyncIterator<EmittedChunk>, first: IteratorResult<EmittedChunk>, result: Promise<BoundaryResult<ChatResponse>>, log: StreamLog): ReadableStream<LanguageModelV4StreamPart> {
  let head: IteratorResult<EmittedChunk> | undefined = first;
  let finished = false;
  let started = false;
  // One writer for the stream; it emits through the current pull's controller.
  let emit: (part: LanguageModelV4StreamPart) => void = () => undefined;
  const served = partWriter((part) => emit(part));
  const replayed = replay(log, (part) => emit(part));
  return new ReadableStream<LanguageModelV4StreamPart>({
    async pull(controller) {
      let wrote = false;
      emit = (part) => { wrote = true; controller.enqueue(part); };
      if (!started) {
        started = true;
        // The model's own stream-start is replayed in its place.
        if (!log.opened) emit({ type: "stream-start", warnings: [] });
      }
      try {
        while (!wrote && !finished) {
          // Read only when the consumer asks: no read is left pending for a consumer that cancels.
          const item = head ?? (await chunks.next());
          head = undefined;
          if (!item.done) {
            if (log.opened) replayed.write(item.value);
            else served.write(pieceOf(item.value));
            continue;
          }
          finished = true;
          const r = await result;
          if (!r.ok) throw r.error;
          const answer = answerOf(r.output);
          if (log.opened && r.facts.called && log.finish) replayed.end(log.finish);
          else if (log.opened) replayed.end({ type: "finish", finishReason: finishOf(answer.finishReason), usage: sdkUsage(answer.usage) });
          else served.end(answer.finishReason, answer.usage);
          controller.close();
        }
      } catch (err) {
        finished = true;
        controller.enqueue({ type: "error", error: err });
        controller.close();
      }
    },
    async cancel() {
      finished = true;
      await chunks.return?.();
    },
  });
}
