/**
 * The upstream `sluice serve`'s gateway forwards the coding-agent CLIs' model calls to, for
 * the gateway tests: Anthropic Messages (Claude Code), chat completions (what the gateway
 * makes of Codex's Responses) and Gemini (Gemini CLI), on one port.
 *
 * It scripts one turn as the fake model does (fake-model.ts): the agent's shell tool first,
 * then, once a tool result came back, a streamed text answer in {@link ANSWER_PIECES}. The
 * answer's last piece is held until the first piece has reached the CLI: a byte relay in
 * front of the gateway (the CLI's base URL) watches the gateway's answer for
 * {@link FIRST_TEXT} and releases it; after {@link GATE_DEADLINE_MS} without a sighting the
 * piece goes out anyway and the release says so. The relay copies bytes unchanged both ways.
 * Every time is `performance.timeOrigin + performance.now()` (epoch ms, sub-millisecond) of
 * this one process, comparable with the gateway's own records (epoch ms, same clock).
 */
import { createServer, type Server } from "node:http";
import { createServer as createTcpServer, connect, type Server as TcpServer } from "node:net";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import {
  anthropic, chat, gemini, json, protocolOf, readBody, shellArgs, shellToolOf, toolResultsOf,
  type Json, type ModelRequest,
} from "./fake-model.js";

/** The streamed answer, piece by piece: an e-mail address split across two pieces, for pii-redact. */
export const ANSWER_PIECES = ["Report ready. ", "Mail alice.smith", "@example.com for ", "the details."] as const;
export const RAW_EMAIL = "alice.smith@example.com";
/** The answer as pii-redact leaves it. */
export const REDACTED_ANSWER = "Report ready. Mail [email] for the details.";
/** What the relay looks for in the gateway's answer: the first piece's first word, which pii-redact lets through at once. */
export const FIRST_TEXT = "Report ready.";
/** How long the last piece waits for the first text to reach the CLI before it goes out regardless (then the test fails, saying so). */
export const GATE_DEADLINE_MS = 30_000;

const now = () => performance.timeOrigin + performance.now();

/** One streamed answer: when each piece went out, and what released the last one. */
export interface AnsweredStream {
  protocol: ModelRequest["protocol"];
  url: string;
  piecesSentAt: number[];
  /** When the upstream wrote its last chunk (the final piece and the stream's end). */
  lastChunkAt: number;
  releasedBy: "first text seen by the relay" | "deadline";
}

/** The relay saw {@link FIRST_TEXT} in the gateway's answer on its way to the CLI. */
export interface Sighting { at: number; operationId: string | null }

export interface UpstreamRecord {
  requests: Array<{ method: string; url: string; protocol: ModelRequest["protocol"]; headers: Record<string, string | string[] | undefined>; body: unknown }>;
  toolCalls: Array<{ protocol: ModelRequest["protocol"]; name: string; args: Record<string, unknown> }>;
  streams: AnsweredStream[];
  sightings: Sighting[];
  /** The requests the CLI sent the gateway (through the relay), by method and path. */
  clientRequests: Array<{ method: string; path: string }>;
  /** The gateway's error answers the relay passed to the CLI: status and the start of the body. */
  errors: Array<{ status: number; body: string }>;
}

export interface GatewayUpstream {
  url: string;
  record: UpstreamRecord;
  /** Opens the relay to `target` (the gateway's origin); resolves with the relay's origin. */
  relay(target: string): Promise<string>;
  close(): Promise<void>;
}

function sse(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;
}

/** The streamed answer's frames in the protocol's shape: `head` before the first piece, one frame a piece (the last one closing the stream). */
function frames(protocol: ModelRequest["protocol"], body: Json): { head: string[]; piece: (text: string, last: boolean) => string } {
  const model = String(body.model ?? "test-model");
  if (protocol === "anthropic") {
    const message = { id: "msg_gw_answer", type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 1 } };
    return {
      head: [sse({ type: "message_start", message }, "message_start"), sse({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }, "content_block_start")],
      piece: (text, last) => sse({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }, "content_block_delta") + (last
        ? sse({ type: "content_block_stop", index: 0 }, "content_block_stop")
          + sse({ type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 9 } }, "message_delta")
          + sse({ type: "message_stop" }, "message_stop")
        : ""),
    };
  }
  if (protocol === "chat") {
    const base = { id: "chatcmpl-gw-answer", object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model };
    let first = true;
    return {
      head: [],
      piece: (text, last) => {
        const delta = first ? { role: "assistant", content: text } : { content: text };
        first = false;
        return sse({ ...base, choices: [{ index: 0, delta, finish_reason: null }] }) + (last
          ? sse({ ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage: { prompt_tokens: 12, completion_tokens: 9, total_tokens: 21 } }) + "data: [DONE]\n\n"
          : "");
      },
    };
  }
  return {
    head: [],
    piece: (text, last) => sse({
      candidates: [{ content: { role: "model", parts: [{ text }] }, index: 0, ...(last ? { finishReason: "STOP" } : {}) }],
      ...(last ? { usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 9, totalTokenCount: 21 } } : {}),
      modelVersion: "gemini-test",
    }),
  };
}

/** Starts the upstream on 127.0.0.1 scripting `command` as the shell call; `changed` runs after every recorded event. */
export async function startGatewayUpstream(command: string, changed: () => void = () => {}): Promise<GatewayUpstream> {
  const record: UpstreamRecord = { requests: [], toolCalls: [], streams: [], sightings: [], clientRequests: [], errors: [] };
  const sightingWaiters = new Set<() => void>();
  const sighted = (at: number, operationId: string | null) => {
    record.sightings.push({ at, operationId });
    changed();
    for (const w of sightingWaiters) w();
  };
  /** Resolves once the relay has seen the first text more often than `seen`, or at the deadline. */
  const firstTextAfter = (seen: number): Promise<AnsweredStream["releasedBy"]> => new Promise((resolve) => {
    if (record.sightings.length > seen) { resolve("first text seen by the relay"); return; }
    const done = (by: AnsweredStream["releasedBy"]) => { clearTimeout(timer); sightingWaiters.delete(waiter); resolve(by); };
    const waiter = () => { if (record.sightings.length > seen) done("first text seen by the relay"); };
    const timer = setTimeout(() => done("deadline"), GATE_DEADLINE_MS);
    sightingWaiters.add(waiter);
  });

  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = req.url ?? "/";
      const path = url.split("?")[0]!;
      const body = req.method === "POST" ? await readBody(req) : {};
      const protocol = protocolOf(path);
      record.requests.push({ method: req.method ?? "GET", url, protocol, headers: req.headers, body });
      changed();
      const results = toolResultsOf(protocol, body);
      const tool = results.length === 0 ? shellToolOf(protocol, body) : undefined;
      const call = tool ? { name: tool.name, args: shellArgs(tool, command) } : undefined;
      if (call) { record.toolCalls.push({ protocol, ...call }); changed(); }
      if (req.method !== "POST") { res.writeHead(200).end(); return; }
      const streamed = body.stream === true || path.includes("streamGenerateContent");
      const sideQuestion = (body.generationConfig as Json | undefined)?.responseMimeType === "application/json";
      if (!call && results.length > 0 && streamed && !sideQuestion && protocol !== "other") {
        const seen = record.sightings.length;
        const { head, piece } = frames(protocol, body);
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        for (const h of head) res.write(h);
        const piecesSentAt: number[] = [];
        for (const p of ANSWER_PIECES.slice(0, -1)) { res.write(piece(p, false)); piecesSentAt.push(now()); }
        const releasedBy = await firstTextAfter(seen);
        res.end(piece(ANSWER_PIECES.at(-1)!, true));
        const lastChunkAt = now();
        piecesSentAt.push(lastChunkAt);
        record.streams.push({ protocol, url, piecesSentAt, lastChunkAt, releasedBy });
        changed();
        return;
      }
      const answer = "Nothing to do.";
      if (protocol === "anthropic") {
        if (path.endsWith("/count_tokens")) json(res, 200, { input_tokens: 12 });
        else anthropic(res, body, call, answer);
      } else if (protocol === "chat") chat(res, body, call, answer);
      else if (protocol === "gemini") gemini(res, path, body, call, answer);
      else if (path.endsWith(":countTokens")) json(res, 200, { totalTokens: 12 });
      else json(res, 404, { error: { message: `the gateway upstream has no ${req.method} ${path}` } });
    })().catch((e: unknown) => { if (!res.headersSent) json(res, 500, { error: { message: String(e) } }); });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

  const relays: TcpServer[] = [];
  const relay = async (target: string): Promise<string> => {
    const { hostname, port } = new URL(target);
    const r = createTcpServer((client) => {
      const gateway = connect(Number(port), hostname);
      // The gateway's answers on this connection so far, as bytes (latin1 keeps one char a byte); responses are small here.
      let transcript = "";
      gateway.on("data", (d: Buffer) => {
        const at = now();
        const from = Math.max(0, transcript.length - FIRST_TEXT.length + 1);
        transcript += d.toString("latin1");
        for (let i = transcript.indexOf(FIRST_TEXT, from); i >= 0; i = transcript.indexOf(FIRST_TEXT, i + 1)) {
          const ids = [...transcript.slice(0, i).matchAll(/x-sluice-operation-id: ([0-9a-f-]{36})/gi)];
          sighted(at, ids.at(-1)?.[1] ?? null);
        }
        client.write(d);
      });
      // What the CLI sent on this connection, scanned for request lines from the end of the last one found.
      let sent = "";
      let scanned = 0;
      client.on("data", (d: Buffer) => {
        sent += d.toString("latin1");
        // A JSON body holds no raw CRLF, so a request line is the only match.
        const lines = /(GET|HEAD|POST|PUT|DELETE|OPTIONS) (\/\S*) HTTP\/1\.1\r\n/g;
        lines.lastIndex = scanned;
        for (let m = lines.exec(sent); m; m = lines.exec(sent)) { record.clientRequests.push({ method: m[1]!, path: m[2]! }); scanned = lines.lastIndex; }
        changed();
        gateway.write(d);
      });
      client.on("end", () => gateway.end());
      gateway.on("end", () => client.end());
      gateway.on("close", () => {
        for (const m of transcript.matchAll(/HTTP\/1\.1 ([45]\d\d)[^\r]*\r\n[\s\S]*?\r\n\r\n([\s\S]{0,1000})/g)) {
          record.errors.push({ status: Number(m[1]), body: Buffer.from(m[2]!, "latin1").toString("utf8") });
        }
        changed();
      });
      client.on("error", () => gateway.destroy());
      gateway.on("error", () => client.destroy());
    });
    relays.push(r);
    await new Promise<void>((resolve) => r.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(r.address() as AddressInfo).port}`;
  };

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    record,
    relay,
    close: async () => {
      for (const r of relays) r.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
