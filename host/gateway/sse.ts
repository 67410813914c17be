/**
 * Server-sent events, both ways. Reading is eventsource-parser's (incremental: an event is
 * yielded as soon as its blank line arrives, whatever the network's chunking, lines and
 * UTF-8 sequences split anywhere), with a cap on what it may buffer; writing is one line each.
 */
import type { ServerResponse } from "node:http";
import { createParser } from "eventsource-parser";
import { SluiceError } from "../errors/sluice-error.js";

/** An event larger than this is refused rather than buffered without end (the default; the gateway passes its upstream limit). */
export const SSE_EVENT_MAX_CHARS = 4 * 1024 * 1024;

/** The `data` of each event, multi-line data joined with "\n". Event names and ids are ignored: chat streams carry data only. */
export async function* sseData(body: AsyncIterable<Uint8Array>, maxChars = SSE_EVENT_MAX_CHARS): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const ready: string[] = [];
  let tooLarge = false;
  const parser = createParser({
    maxBufferSize: maxChars,
    onEvent: (event) => ready.push(event.data),
    onError: (error) => { if (error.type === "max-buffer-size-exceeded") tooLarge = true; },
  });
  const feed = (text: string): string[] => {
    parser.feed(text);
    if (tooLarge) throw new SluiceError("UPSTREAM_TOO_LARGE", `the upstream sent a stream event larger than ${maxChars} characters`, { limit: maxChars });
    return ready.splice(0);
  };
  for await (const bytes of body) yield* feed(decoder.decode(bytes, { stream: true }));
  // A last event without its blank line (some upstreams end on "data: [DONE]") still counts.
  yield* feed(`${decoder.decode()}\n\n`);
}

/** One event as written to the client. */
export function sseEvent(data: unknown): string {
  return `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

/** One named event (the Responses API names every event by its type). */
export function sseNamedEvent(type: string, data: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Writes framed events, waiting for the socket to drain (or close) so a slow client slows the stream instead of filling memory. */
export function writeFrame(res: ServerResponse, frame: string): Promise<void> {
  if (res.destroyed || res.writableEnded) return Promise.resolve();
  if (res.write(frame)) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => { res.off("drain", done); res.off("close", done); resolve(); };
    res.on("drain", done);
    res.on("close", done);
  });
}
