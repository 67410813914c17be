/**
 * The OpenAI-compatible upstream, over a keep-alive undici Pool (Node's fetch cost about
 * 0.3 ms a call more here: web streams, a Request and Response object and their signals).
 * Credentials are added here, after
 * the hooks (SECURITY.md: hooks never see API keys). Every failure leaves as a SluiceError:
 * UPSTREAM_TIMEOUT when the upstream is silent past the timeout, UPSTREAM_TOO_LARGE when
 * its answer passes the size limit (bodies are read as a stream and stopped there, never
 * buffered whole), UPSTREAM_FAILED for anything else it does wrong; the caller's own
 * abort is rethrown as it came. Upstream error text is sanitised (upstream-error.ts); a
 * socket error is never in the message (it names the gateway's network), only in the cause.
 */
import { Pool, type Dispatcher } from "undici";
import { SluiceError, isSluiceError } from "../errors/sluice-error.js";
import { sseData } from "./sse.js";
import type { UpstreamConfig } from "./options.js";
import type { UpstreamProtocol } from "./upstream-url.js";
import { googleRetryDelay, sanitiseUpstreamError } from "./upstream-error.js";
import { upstreamRetryAfter } from "../http/retry-after.js";
import { withKeys } from "../objects/with-keys.js";

/** An upstream error body is read up to this much; the rest is not needed to explain it. */
const ERROR_BODY_MAX_BYTES = 64 * 1024;

/**
 * Upstream error statuses a client can act on, forwarded with the upstream's error body.
 * Auth failures are ours, not the client's. 529 is Anthropic's "overloaded": its clients
 * retry it and Claude Code falls back to its other model on it, which a 502 would not do.
 */
const CLIENT_STATUSES = new Set([400, 404, 409, 413, 422, 429, 529]);
/** How long an upstream may take to end its body after `[DONE]` before its connection is let go. */
export const DONE_GRACE_MS = 50;

type Answer = Dispatcher.ResponseData;

/** Where each protocol's upstream takes its key. */
const KEY_HEADER: Readonly<Record<UpstreamProtocol, string>> = { openai: "authorization", anthropic: "x-api-key", gemini: "x-goog-api-key" };

export class Upstream {
  private readonly pool: Pool;
  private readonly basePath: string;
  private readonly headers: Record<string, string>;

  /**
   * `connections`: at most this many to the upstream at once, the server's connection cap:
   * every request in flight holds one until its answer ends, a stream for its whole length,
   * so a smaller pool made the streams beyond it wait for others to finish.
   */
  constructor(private readonly config: UpstreamConfig, connections: number, protocol: UpstreamProtocol = "openai") {
    const url = new URL(config.baseUrl);
    this.basePath = url.pathname.replace(/\/+$/, "");
    this.pool = new Pool(url.origin, { connections, keepAliveTimeout: 30_000 });
    this.headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    if (config.apiKey) this.headers[KEY_HEADER[protocol]] = protocol === "openai" ? `Bearer ${config.apiKey}` : config.apiKey;
  }

  /** The upstream's base URL (for the start-up log and errors). */
  get baseUrl(): string {
    return this.config.baseUrl;
  }

  /** Closes the kept-alive connections (the gateway's onClose). */
  close(): Promise<void> {
    return this.pool.close();
  }

  /** POSTs JSON and returns the JSON answer; the timeout covers the whole exchange. */
  json(path: string, body: unknown, signal: AbortSignal, headers?: Record<string, string>): Promise<Record<string, any>> {
    return this.exchange("POST", path, body, signal, headers);
  }

  /** GETs a JSON answer (a model list), with the same timeout, size limit and errors as {@link json}. */
  getJson(path: string, signal: AbortSignal, headers?: Record<string, string>): Promise<Record<string, any>> {
    return this.exchange("GET", path, undefined, signal, headers);
  }

  private async exchange(method: "GET" | "POST", path: string, body: unknown, signal: AbortSignal, headers?: Record<string, string>): Promise<Record<string, any>> {
    const call = this.call(signal);
    try {
      call.arm();
      const res = await this.send(method, path, body, call.signal, headers);
      call.answered();
      const text = await readCapped(res, this.config.maxBytes, path);
      call.complete();
      try {
        return JSON.parse(text) as Record<string, any>;
      } catch {
        throw new SluiceError("UPSTREAM_FAILED", `the upstream answered ${path} with something that is not JSON`, { status: res.statusCode });
      }
    } catch (err) {
      throw call.translate(err);
    } finally {
      call.done();
    }
  }

  /**
   * POSTs JSON and yields each SSE event's data as it arrives. The timeout is an idle
   * timeout: it runs while waiting for the upstream, never while the consumer (the
   * hooks) holds an event. Stopping the iteration cancels the upstream request.
   *
   * The `[DONE]` event is yielded once the body has ended after it (at once, as upstreams
   * send both together): a consumer that stops at `[DONE]` then leaves the connection to
   * the pool instead of closing it. An upstream that keeps the body open past `[DONE]` is
   * let go after {@link DONE_GRACE_MS}, and what it sends after `[DONE]` is ignored.
   */
  async *events(path: string, body: unknown, signal: AbortSignal, headers?: Record<string, string>): AsyncGenerator<string> {
    const call = this.call(signal);
    let done: string | undefined;
    try {
      call.arm();
      const res = await this.send("POST", path, body, call.signal, headers);
      call.answered();
      // A JSON answer to a stream request is one event: the caller reads it as a whole completion.
      if (/^application\/json\b/i.test(header(res, "content-type"))) {
        const text = await readCapped(res, this.config.maxBytes, path);
        call.complete();
        yield text;
        return;
      }
      for await (const data of sseData(res.body, this.config.maxBytes)) {
        // Past [DONE] the grace timer runs on: nothing the upstream sends then resets it.
        if (done !== undefined) continue;
        call.disarm();
        if (data.trim() === "[DONE]") { done = data; call.grace(DONE_GRACE_MS); continue; }
        yield data;
        call.arm();
      }
      call.complete();
    } catch (err) {
      // Past [DONE], a body that did not end in time (or broke) takes nothing from the answer.
      if (done === undefined || signal.aborted) throw call.translate(err);
    } finally {
      call.done();
    }
    if (done !== undefined) yield done;
  }

  /** `headers`: the client's protocol headers passed on (anthropic-version, anthropic-beta); the key is always the gateway's own. */
  private async send(method: "GET" | "POST", path: string, body: unknown, signal: AbortSignal, headers?: Record<string, string>): Promise<Answer> {
    const res = await this.pool.request({ method, path: `${this.basePath}${path}`, headers: headers ? withKeys(headers, this.headers) : this.headers, ...(method === "POST" ? { body: JSON.stringify(body) } : {}), signal });
    if (res.statusCode >= 200 && res.statusCode < 300) return res;
    const text = await readCapped(res, ERROR_BODY_MAX_BYTES, path).catch(() => "");
    let raw: unknown;
    try { raw = (JSON.parse(text) as { error?: unknown }).error; } catch { /* not an OpenAI error body */ }
    const status = res.statusCode;
    const error = sanitiseUpstreamError(status, raw);
    const wait = upstreamRetryAfter({ "retry-after": header(res, "retry-after"), "retry-after-ms": header(res, "retry-after-ms") });
    // Google gives its wait in the body, not in a header.
    wait.seconds ??= googleRetryDelay(raw);
    throw new SluiceError("UPSTREAM_FAILED", `the upstream answered ${path} with HTTP ${status}${error.code ? ` (${error.code})` : ""}${error.message ? `: ${error.message}` : ""}`, {
      status,
      ...(CLIENT_STATUSES.has(status) ? { error } : {}),
      ...(wait.seconds !== undefined ? { retryAfterSeconds: wait.seconds } : {}),
      ...(wait.ms !== undefined ? { retryAfterMs: wait.ms } : {}),
    });
  }

  /** One request's abort wiring: the caller's signal, plus a timer that can be paused. */
  private call(outer: AbortSignal) {
    const inner = new AbortController();
    const timeoutMs = this.config.timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    let complete = false;
    let answered = false;
    const onAbort = () => inner.abort(outer.reason);
    outer.addEventListener("abort", onAbort, { once: true });
    if (outer.aborted) onAbort();
    return {
      signal: inner.signal,
      arm: () => { timer = setTimeout(() => { timedOut = true; inner.abort(); }, timeoutMs); },
      disarm: () => clearTimeout(timer),
      /** The answer is whole: its body has `ms` to end before the connection is let go. */
      grace: (ms: number) => { clearTimeout(timer); timer = setTimeout(() => inner.abort(), ms); },
      /** The upstream's status and headers arrived: a failure now is a connection lost mid-answer. */
      answered: () => { answered = true; },
      /** The whole answer was read: the connection goes back to the pool. */
      complete: () => { clearTimeout(timer); complete = true; },
      done: () => {
        clearTimeout(timer);
        outer.removeEventListener("abort", onAbort);
        // Releases the connection when the consumer stopped early (an abort costs a DOMException: not paid on every call).
        if (!complete) inner.abort();
      },
      translate: (err: unknown): unknown => {
        if (outer.aborted) return outer.reason;
        if (timedOut) return new SluiceError("UPSTREAM_TIMEOUT", `the upstream sent nothing for ${timeoutMs} ms`, { timeoutMs });
        if (isSluiceError(err)) return err;
        // Out of file descriptors: this server is full, not the upstream down; a client may retry in a moment.
        if (!answered && outOfDescriptors(err)) return new SluiceError("CONNECTIONS_FULL", "the gateway has no file descriptor left to reach the upstream (the process's limit, ulimit -n); retry later", {}, { cause: err });
        // The socket's error (an address, a port, an errno) stays in the cause, for the server log: the client learns only what failed.
        return new SluiceError("UPSTREAM_FAILED", answered ? "the upstream's connection failed while it was answering" : "the upstream could not be reached", {}, { cause: err });
      },
    };
  }
}

/** EMFILE or ENFILE, on the error or anywhere down its causes (undici wraps the socket's). */
function outOfDescriptors(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (e.code === "EMFILE" || e.code === "ENFILE") return true;
  }
  return false;
}

/**
 * The body as text, read chunk by chunk and abandoned (the connection released) once it
 * passes `maxBytes`: a 256 MiB answer costs at most `maxBytes` of memory.
 */
async function readCapped(res: Answer, maxBytes: number, path: string): Promise<string> {
  const declared = Number(header(res, "content-length"));
  if (declared > maxBytes) {
    res.body.destroy();
    throw tooLarge(path, maxBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      res.body.destroy();
      throw tooLarge(path, maxBytes);
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks, size).toString("utf8");
}

function header(res: Answer, name: string): string {
  const v = res.headers[name];
  return Array.isArray(v) ? (v[0] ?? "") : (v ?? "");
}

function tooLarge(path: string, maxBytes: number): SluiceError {
  return new SluiceError("UPSTREAM_TOO_LARGE", `the upstream's answer to ${path} is larger than ${maxBytes} bytes (the gateway's upstream size limit)`, { limit: maxBytes });
}
