/**
 * Server-sent events, both ways. Reading is incremental: an event is yielded as soon as
 * its blank line arrives, whatever the network's chunking (lines and UTF-8 sequences may
 * be split anywhere).
 */
import type { ServerResponse } from "node:http";
import { SluiceError } from "../errors/sluice-error.js";

/** An event larger than this is refused rather than buffered without end (the default; the gateway passes its upstream limit). */
export const SSE_EVENT_MAX_CHARS = 4 * 1024 * 1024;

/** The `data` of each event, multi-line data joined with "\n". Event names and ids are ignored: chat streams carry data only. */
export async function* sseData(body: AsyncIterable<Uint8Array>, maxChars = SSE_EVENT_MAX_CHARS): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  let size = 0;
  const lines = function* (final: boolean): Generator<string> {
    for (;;) {
      const i = buffer.search(/[\r\n]/);
      if (i < 0) return;
      // A "\r" at the end may be the first half of "\r\n": wait for the next bytes.
      if (buffer[i] === "\r" && i === buffer.length - 1 && !final) return;
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + (buffer[i] === "\r" && buffer[i + 1] === "\n" ? 2 : 1));
      yield line;
    }
  };
  const take = (line: string): string | null => {
    if (line === "") {
      const event = data.length > 0 ? data.join("\n") : null;
      data = [];
      size = 0;
      return event;
    }
    if (line.startsWith(":")) return null;
    const colon = line.indexOf(":");
    if ((colon < 0 ? line : line.slice(0, colon)) === "data") {
      const value = colon < 0 ? "" : line.slice(colon + (line[colon + 1] === " " ? 2 : 1));
      size += value.length;
      data.push(value);
    }
    return null;
  };
  for await (const bytes of body) {
    buffer += decoder.decode(bytes, { stream: true });
    for (const line of lines(false)) {
      const event = take(line);
      if (event !== null) yield event;
    }
    if (buffer.length + size > maxChars) throw new SluiceError("UPSTREAM_TOO_LARGE", `the upstream sent a stream event larger than ${maxChars} characters`, { limit: maxChars });
  }
  buffer += decoder.decode();
  for (const line of [...lines(true), ...(buffer !== "" ? [buffer] : []), ""]) {
    const event = take(line);
    if (event !== null) yield event;
  }
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
