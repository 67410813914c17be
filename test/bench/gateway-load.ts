/**
 * The gateway scenario's other processes: one child runs the fake OpenAI upstream that
 * answers at once, another the load generator, so the gateway's process spends its CPU on
 * the gateway alone, and a direct call crosses processes as a call through the gateway
 * does. Driven over IPC (messages below); times in microseconds, except the epoch times of
 * the abort measurement (milliseconds since the epoch, comparable across processes).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Pool } from "undici";
import { stats, type Stats } from "./measure.js";
import { openaiLatency, openaiConcurrent, openaiStreams, type OpenAICommand } from "./openai-load.js";

export type LoadCommand =
  | { cmd: "upstream" }
  | { cmd: "latency"; targets: { name: string; origin: string; path: string; body: string; auth?: string }[]; warmup: number; samples: number; perRound: number }
  | { cmd: "rate"; origin: string; path: string; body: string; auth: string; rps: number; durationMs: number; maxInFlight: number }
  | { cmd: "abort"; origin: string; path: string; body: string; auth: string; repeats: number }
  | { cmd: "hangs" }
  | OpenAICommand;
/** What the open-loop `rate` command answers. */
export type RateReply = { perSecond: number; completed: number; errors: number; latency: Stats };
export type LoadReply =
  | { port: number }
  | { latency: Record<string, Stats> }
  | RateReply
  | { abortedAt: number[] }
  | { closedAt: number[] }
  | { concurrent: { latency: Stats; errors: number; wrong: number; errorSamples: string[] } }
  | { streams: Record<string, { firstText: Stats; whole: Stats; errors: number; wrong: number }> }
  | { error: string };

/** The streamed answer: its pieces, sent STREAM_GAP_MS apart, as a model streams tokens. */
export const STREAM_PIECES = ["Hello ", "from ", "the ", "fake ", "upstream", ", ", "write ", "to ", "me ", "any", "time", "."];
export const STREAM_GAP_MS = 5;
export const ANSWER = "Hello from the fake upstream.";
const COMPLETION = JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion", created: 1_700_000_000, model: "bench", choices: [{ index: 0, message: { role: "assistant", content: "Hello from the fake upstream." }, finish_reason: "stop" }], usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 } });
const MESSAGE = JSON.stringify({ id: "msg_bench", type: "message", role: "assistant", model: "bench", content: [{ type: "text", text: ANSWER }], stop_reason: "end_turn", stop_sequence: null, usage: { input_tokens: 5, output_tokens: 6 } });
const GENERATED = JSON.stringify({ candidates: [{ content: { role: "model", parts: [{ text: ANSWER }] }, finishReason: "STOP", index: 0 }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 6, totalTokenCount: 11 }, modelVersion: "bench" });
const epoch = (): number => performance.timeOrigin + performance.now();
/** When each "[hang]" request's connection closed, as the upstream saw it. */
const closedAt: number[] = [];

function startUpstream(): Promise<number> {
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => { body += c; });
    req.on("end", () => {
      if (body.includes("[hang]")) {
        res.on("close", () => closedAt.push(epoch()));
        return;
      }
      // The same answer in each protocol the gateway speaks, by the path it is asked on.
      const protocol = req.url?.startsWith("/v1/messages") ? "anthropic" : req.url?.startsWith("/v1beta/") ? "gemini" : "openai";
      if (protocol === "gemini" ? req.url!.includes(":streamGenerateContent") : body.includes('"stream":true')) return streamAnswer(res, protocol);
      const answer = protocol === "anthropic" ? MESSAGE : protocol === "gemini" ? GENERATED : COMPLETION;
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(answer) });
      res.end(answer);
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)));
}

/** Each protocol's stream of the same pieces: its opening events, one event a piece, its closing events. */
const STREAMS = {
  openai: {
    open: () => chatChunk({ role: "assistant", content: "" }),
    piece: (text: string) => chatChunk({ content: text }),
    close: () => chatChunk({}, "stop") + "data: [DONE]\n\n",
  },
  anthropic: {
    open: () => named({ type: "message_start", message: { id: "msg_bench", type: "message", role: "assistant", model: "bench", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } } })
      + named({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    piece: (text: string) => named({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }),
    close: () => named({ type: "content_block_stop", index: 0 }) + named({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 6 } }) + named({ type: "message_stop" }),
  },
  gemini: {
    open: () => "",
    piece: (text: string) => `data: ${JSON.stringify({ candidates: [{ content: { role: "model", parts: [{ text }] }, index: 0 }], modelVersion: "bench" })}\r\n\r\n`,
    close: () => `data: ${JSON.stringify({ candidates: [{ content: { role: "model", parts: [] }, finishReason: "STOP", index: 0 }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 6, totalTokenCount: 11 }, modelVersion: "bench" })}\r\n\r\n`,
  },
} as const;

function chatChunk(delta: Record<string, unknown>, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id: "chatcmpl-bench", object: "chat.completion.chunk", created: 1_700_000_000, model: "bench", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

function named(event: { type: string; [field: string]: unknown }): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

function streamAnswer(res: import("node:http").ServerResponse, protocol: keyof typeof STREAMS): void {
  const s = STREAMS[protocol];
  res.writeHead(200, { "content-type": "text/event-stream" });
  const opening = s.open();
  if (opening !== "") res.write(opening);
  let i = 0;
  const next = () => {
    if (res.destroyed) return;
    if (i < STREAM_PIECES.length) { res.write(s.piece(STREAM_PIECES[i++]!)); setTimeout(next, STREAM_GAP_MS); return; }
    res.end(s.close());
  };
  setTimeout(next, STREAM_GAP_MS);
}

const pools = new Map<string, Pool>();
const poolOf = (origin: string): Pool => {
  let p = pools.get(origin);
  // Fewer connections than the gateway's cap (256); no request waits longer than 30 s for an answer.
  if (!p) pools.set(origin, (p = new Pool(origin, { connections: 128, pipelining: 1, keepAliveTimeout: 4_000, headersTimeout: 30_000, bodyTimeout: 30_000 })));
  return p;
};

async function post(origin: string, path: string, body: string, auth?: string, signal?: AbortSignal): Promise<void> {
  const r = await poolOf(origin).request({ method: "POST", path, body, headers: { "content-type": "application/json", ...(auth ? { authorization: auth } : {}) }, ...(signal ? { signal } : {}) });
  await r.body.text();
  if (r.statusCode !== 200) throw new Error(`HTTP ${r.statusCode}`);
}

async function latency(c: Extract<LoadCommand, { cmd: "latency" }>): Promise<Record<string, Stats>> {
  const times = new Map<string, number[]>(c.targets.map((t) => [t.name, []]));
  for (const t of c.targets) for (let i = 0; i < c.warmup; i++) await post(t.origin, t.path, t.body, t.auth);
  for (let done = 0; done < c.samples; done += c.perRound) {
    for (const t of c.targets) {
      const out = times.get(t.name)!;
      for (let i = 0; i < c.perRound && done + i < c.samples; i++) {
        const t0 = performance.now();
        await post(t.origin, t.path, t.body, t.auth);
        out.push((performance.now() - t0) * 1000);
      }
    }
  }
  return Object.fromEntries([...times].map(([k, v]) => [k, stats(v)]));
}

/** Open loop: requests start on a fixed schedule whatever the answers do; latency counts from the scheduled start (no coordinated omission). */
async function rate(c: Extract<LoadCommand, { cmd: "rate" }>): Promise<RateReply> {
  const lat: number[] = [];
  let errors = 0;
  let inFlight = 0;
  let sent = 0;
  const t0 = performance.now();
  const total = Math.round((c.rps * c.durationMs) / 1000);
  const pending: Promise<void>[] = [];
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - t0) * c.rps) / 1000));
    for (; sent < due; sent++) {
      const scheduled = t0 + (sent * 1000) / c.rps;
      if (inFlight >= c.maxInFlight) { errors++; continue; }
      inFlight++;
      pending.push(post(c.origin, c.path, c.body, c.auth).then(() => { lat.push((performance.now() - scheduled) * 1000); }, () => { errors++; }).finally(() => { inFlight--; }));
    }
    // Sleeps until the next start is due: a loop turning on setImmediate took a whole core
    // (581 µs of this process's CPU an answer), which the server under test shares on 2 vCPUs.
    // A late timer delays a start, and that delay counts in its latency (from the schedule).
    const next = t0 + (sent * 1000) / c.rps;
    await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
  }
  await Promise.all(pending);
  // Answers per second of the schedule: all of them answered means the rate was sustained (p99 says how late).
  return { perSecond: lat.length / (c.durationMs / 1000), completed: lat.length, errors, latency: stats(lat) };
}

/** Requests the upstream never answers, each aborted by the client 50 ms after it was sent (long after it reached the upstream); when each abort happened. */
async function abort(c: Extract<LoadCommand, { cmd: "abort" }>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < c.repeats; i++) {
    const controller = new AbortController();
    const req = post(c.origin, c.path, c.body, c.auth, controller.signal).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    out.push(epoch());
    controller.abort();
    await req;
    await new Promise((r) => setTimeout(r, 20));
  }
  return out;
}

process.on("message", async (m: LoadCommand) => {
  try {
    let reply: LoadReply;
    if (m.cmd === "upstream") reply = { port: await startUpstream() };
    else if (m.cmd === "latency") reply = { latency: await latency(m) };
    else if (m.cmd === "rate") reply = await rate(m);
    else if (m.cmd === "abort") reply = { abortedAt: await abort(m) };
    else if (m.cmd === "openai-latency") reply = { latency: await openaiLatency(m) };
    else if (m.cmd === "openai-concurrent") reply = { concurrent: await openaiConcurrent(m) };
    else if (m.cmd === "openai-streams") reply = { streams: await openaiStreams(m) };
    else reply = { closedAt: closedAt.splice(0) };
    process.send!(reply);
  } catch (err) {
    process.send!({ error: String((err as Error)?.stack ?? err) });
  }
});
