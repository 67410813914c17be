import type { LanguageModelV4StreamPart } from "@ai-sdk/provider";
import type { BoundaryResult, ChatResponse, EmittedChunk } from "../../index.js";
import { answerOf, pieceOf } from "../shared/host-chat.js";
import { partWriter, type StreamAside } from "./stream.js";

/**
 * The AI SDK stream the caller reads: the host's effective chunks as stream parts, pulled
 * by the consumer (each pull hands on at least one part, or ends the stream), then the
 * finish with the settled call's finish reason and usage. A failure ends it with an
 * error part; a consumer that cancels cancels the host's stream (and so the model's).
 */
export function hookedParts(chunks: AsyncIterator<EmittedChunk>, first: IteratorResult<EmittedChunk>, result: Promise<BoundaryResult<ChatResponse>>, aside: StreamAside): ReadableStream<LanguageModelV4StreamPart> {
  let head: IteratorResult<EmittedChunk> | undefined = first;
  let finished = false;
  let started = false;
  // One writer for the stream; it emits through the current pull's controller.
  let emit: (part: LanguageModelV4StreamPart) => void = () => undefined;
  const writer = partWriter((part) => emit(part));
  return new ReadableStream<LanguageModelV4StreamPart>({
    async pull(controller) {
      let wrote = false;
      emit = (part) => { wrote = true; controller.enqueue(part); };
      if (!started) {
        started = true;
        emit(aside.start ?? { type: "stream-start", warnings: [] });
        if (aside.metadata) emit(aside.metadata);
      }
      try {
        while (!wrote && !finished) {
          // Read only when the consumer asks: no read is left pending for a consumer that cancels.
          const item = head ?? (await chunks.next());
          head = undefined;
          if (!item.done) { writer.write(pieceOf(item.value)); continue; }
          finished = true;
          const r = await result;
          if (!r.ok) throw r.error;
          const answer = answerOf(r.output);
          writer.end(answer.finishReason, answer.usage, r.facts.called ? aside : { extras: [] });
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
