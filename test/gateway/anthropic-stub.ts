/**
 * A tiny Anthropic Messages upstream with deterministic answers, chosen by the request and
 * markers in the last user text: "You said: <text>" streamed in 4-character text deltas; with
 * tools (and a user text last) a short text, then a tool_use block for the first tool with its
 * input in three input_json pieces; after a tool_result "tool said: <result>"; with `thinking`
 * a thinking block (two deltas and a signature with non-ASCII bytes) and a redacted_thinking
 * block first. "[gate]" waits for the test's gate after the first text delta; "[fail]" answers
 * 529 overloaded_error; "[midfail]" streams some text and then an error event. A ping follows
 * message_start. Every stream it wrote is kept, byte for byte.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Gate } from "../helpers/gated-source.js";

export interface AnthropicStub {
  url: string;
  bodies: Record<string, any>[];
  headers: IncomingMessage["headers"][];
  paths: string[];
  /** Each stream as written, in order. */
  streams: string[];
  gate?: Gate;
  /** When set, answers every request itself (a test's own upstream behaviour); the request is still kept above. */
  handle?: (req: IncomingMessage, body: Record<string, any>, res: ServerResponse) => void | Promise<void>;
  close(): Promise<void>;
}

export const THINKING = ["Let me think ", "about the greeting."];
export const SIGNATURE = "EqQBCkYIBxgCKkD+/=sïgnâture✓";
export const REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP";
export const TOOL_INPUT = ["{\"city\":", " \"Par", "is\"}"];

const textOf = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((b) => (b?.type === "text" ? b.text : "")).join("") : "";

export async function startAnthropicStub(): Promise<AnthropicStub> {
  const stub: AnthropicStub = { url: "", bodies: [], headers: [], paths: [], streams: [], close: async () => {} };
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = raw === "" ? {} : JSON.parse(raw);
    stub.bodies.push(body);
    stub.headers.push(req.headers);
    stub.paths.push(req.url ?? "");
    if (stub.handle) return stub.handle(req, body, res);
    if (req.url === "/v1/messages/count_tokens") return json(res, 200, { input_tokens: JSON.stringify(body.messages).length });
    const last = body.messages.at(-1);
    const result = Array.isArray(last.content) ? last.content.find((b: any) => b.type === "tool_result") : undefined;
    const text = textOf(last.content);
    if (text.includes("[fail]")) return json(res, 529, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
    const tool = Array.isArray(body.tools) && body.tools.length > 0 && !result ? body.tools[0] : undefined;
    const answer = result ? `tool said: ${textOf(result.content)}` : tool ? "Let me check." : `You said: ${text}`;
    const thinking = body.thinking?.type === "enabled" || body.thinking?.type === "adaptive";
    const usage = { input_tokens: JSON.stringify(body.messages).length, output_tokens: 9 };
    const blocks: Record<string, unknown>[] = [];
    if (thinking) blocks.push({ type: "thinking", thinking: THINKING.join(""), signature: SIGNATURE }, { type: "redacted_thinking", data: REDACTED });
    blocks.push({ type: "text", text: answer });
    if (tool) blocks.push({ type: "tool_use", id: "toolu_01", name: tool.name, input: JSON.parse(TOOL_INPUT.join("")) });
    const message = { id: "msg_stub", type: "message", role: "assistant", model: `${body.model}-upstream` };
    const stop_reason = tool ? "tool_use" : "end_turn";
    if (!body.stream) return json(res, 200, { ...message, content: blocks, stop_reason, stop_sequence: null, usage });

    res.writeHead(200, { "content-type": "text/event-stream" });
    let written = "";
    const send = (data: Record<string, unknown>) => {
      const frame = `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
      written += frame;
      res.write(frame);
    };
    send({ type: "message_start", message: { ...message, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
    send({ type: "ping" });
    let index = 0;
    if (thinking) {
      send({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } });
      for (const t of THINKING) send({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: t } });
      send({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: SIGNATURE } });
      send({ type: "content_block_stop", index: index++ });
      send({ type: "content_block_start", index, content_block: { type: "redacted_thinking", data: REDACTED } });
      send({ type: "content_block_stop", index: index++ });
    }
    send({ type: "content_block_start", index, content_block: { type: "text", text: "" } });
    for (let i = 0; i < answer.length; i += 4) {
      send({ type: "content_block_delta", index, delta: { type: "text_delta", text: answer.slice(i, i + 4) } });
      if (i === 0 && text.includes("[gate]")) await stub.gate!.wait();
      if (i === 8 && text.includes("[midfail]")) {
        send({ type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
        stub.streams.push(written);
        return res.end();
      }
    }
    send({ type: "content_block_stop", index: index++ });
    if (tool) {
      send({ type: "content_block_start", index, content_block: { type: "tool_use", id: "toolu_01", name: tool.name, input: {} } });
      for (const piece of TOOL_INPUT) send({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: piece } });
      send({ type: "content_block_stop", index: index++ });
    }
    send({ type: "message_delta", delta: { stop_reason, stop_sequence: null }, usage: { output_tokens: 9 } });
    send({ type: "message_stop" });
    stub.streams.push(written);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stub.close = () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return stub;
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
