/**
 * The OpenAI-compatible upstream, over Node's fetch. Credentials are added here, after
 * the hooks (seed 000: hooks never see API keys). Every failure leaves as a SluiceError:
 * UPSTREAM_TIMEOUT when the upstream is silent past the timeout, UPSTREAM_FAILED for
 * anything else it does wrong; the caller's own abort is rethrown as it came.
 */
import { SluiceError, isSluiceError } from "../errors/sluice-error.js";
import { sseData } from "./sse.js";
import type { UpstreamConfig } from "./options.js";

/** Upstream error statuses a client can act on, forwarded with the upstream's error body. Auth failures are ours, not the client's. */
const CLIENT_STATUSES = new Set([400, 404, 409, 413, 422, 429]);

export class Upstream {
  constructor(private readonly config: UpstreamConfig) {}

  /** POSTs JSON and returns the JSON answer; the timeout covers the whole exchange. */
  async json(path: string, body: unknown, signal: AbortSignal): Promise<Record<string, any>> {
    const call = this.call(signal);
    try {
      call.arm();
      const res = await this.post(path, body, call.signal);
      const text = await res.text();
      try {
        return JSON.parse(text) as Record<string, any>;
      } catch {
        throw new SluiceError("UPSTREAM_FAILED", `the upstream answered ${path} with something that is not JSON`, { status: res.status });
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
   */
  async *events(path: string, body: unknown, signal: AbortSignal): AsyncGenerator<string> {
    const call = this.call(signal);
    try {
      call.arm();
      const res = await this.post(path, body, call.signal);
      if (!res.body) throw new SluiceError("UPSTREAM_FAILED", "the upstream answered a stream request without a body", { status: res.status });
      // A JSON answer to a stream request is one event: the caller reads it as a whole completion.
      if (/^application\/json\b/i.test(res.headers.get("content-type") ?? "")) {
        const text = await res.text();
        call.disarm();
        yield text;
        return;
      }
      // Node's web streams are async iterable; the DOM typings do not say so.
      for await (const data of sseData(res.body as unknown as AsyncIterable<Uint8Array>)) {
        call.disarm();
        yield data;
        call.arm();
      }
    } catch (err) {
      throw call.translate(err);
    } finally {
      call.done();
    }
  }

  private async post(path: string, body: unknown, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    if (this.config.apiKey) headers.authorization = `Bearer ${this.config.apiKey}`;
    const res = await fetch(`${this.config.baseUrl}${path}`, { method: "POST", headers, body: JSON.stringify(body), signal });
    if (res.ok) return res;
    const text = await res.text().catch(() => "");
    let error: unknown;
    try { error = (JSON.parse(text) as { error?: unknown }).error; } catch { /* not an OpenAI error body */ }
    throw new SluiceError("UPSTREAM_FAILED", `the upstream answered ${path} with HTTP ${res.status}${typeof (error as any)?.message === "string" ? `: ${(error as any).message}` : ""}`, {
      status: res.status,
      ...(CLIENT_STATUSES.has(res.status) && typeof error === "object" && error !== null ? { error } : {}),
    });
  }

  /** One request's abort wiring: the caller's signal, plus a timer that can be paused. */
  private call(outer: AbortSignal) {
    const inner = new AbortController();
    const timeoutMs = this.config.timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    let timedOut = false;
    const onAbort = () => inner.abort(outer.reason);
    outer.addEventListener("abort", onAbort, { once: true });
    if (outer.aborted) onAbort();
    return {
      signal: inner.signal,
      arm: () => { timer = setTimeout(() => { timedOut = true; inner.abort(); }, timeoutMs); },
      disarm: () => clearTimeout(timer),
      done: () => {
        clearTimeout(timer);
        outer.removeEventListener("abort", onAbort);
        // Releases the connection when the consumer stopped early.
        inner.abort();
      },
      translate: (err: unknown): unknown => {
        if (outer.aborted) return outer.reason;
        if (timedOut) return new SluiceError("UPSTREAM_TIMEOUT", `the upstream sent nothing for ${timeoutMs} ms`, { timeoutMs });
        if (isSluiceError(err)) return err;
        const cause = (err as Error)?.cause as Error | undefined;
        return new SluiceError("UPSTREAM_FAILED", `the upstream could not be reached: ${cause?.message ?? (err as Error)?.message ?? String(err)}`, {});
      },
    };
  }
}
