/**
 * A tiny OpenAI-compatible upstream with deterministic answers, chosen by markers in the
 * last message: "[fail]" answers 500, "[limit]" 429 (retry-after 7, retry-after-ms 6500),
 * "[overloaded]" 503 (retry-after a date 30 s ahead), "[badwait]" 429 with retry-after
 * values that do not parse, "[hang]" never answers, "[stall]"
 * streams one chunk and then goes silent, "[cut]" streams its text and closes without a
 * finish_reason or [DONE], "[json]" answers a stream request with a plain JSON completion,
 * "[huge]" sends 256 MiB (one endless JSON body, or one endless stream event), "[badkey]"
 * answers 401 naming a masked key, "[leaky]" 400 with a key in its message, "[think]" adds
 * reasoning (REASONING, as `reasoning_content`, streamed in two pieces before the text),
 * "[long]" finishes with finish_reason "length", "[slow]" answers after 150 ms. With tools it
 * calls the first tool; after a tool
 * message it answers "tool said: …"; otherwise "You said: <text>". Streams are cut into
 * 4-character pieces so patterns split across chunks.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface StubUpstream {
  url: string;
  /** Chat calls received (embedding calls are counted apart). */
  chatCalls: number;
  embeddingCalls: number;
  bodies: Record<string, any>[];
  authorizations: (string | undefined)[];
  /** Requests whose client went away before the stub answered. */
  cancelled: number;
  /** Bytes of "[huge]" answers written before the client stopped reading. */
  hugeBytesSent: number;
  close(): Promise<void>;
}

export const answerOf = (text: string) => `You said: ${text}`;
export const TOOL_ARGUMENTS = ["{\"city\":", "\"Par", "is\"}"];
export const REASONING = ["The user greets; ", "answer in kind."];

async function readJson(req: IncomingMessage): Promise<Record<string, any>> {
  let text = "";
  for await (const chunk of req) text += chunk;
  return JSON.parse(text);
}

export async function startStubUpstream(): Promise<StubUpstream> {
  const stub: StubUpstream = { url: "", chatCalls: 0, embeddingCalls: 0, bodies: [], authorizations: [], cancelled: 0, hugeBytesSent: 0, close: async () => {} };
  const server = createServer(async (req, res) => {
    const body = await readJson(req);
    stub.bodies.push(body);
    stub.authorizations.push(req.headers.authorization);
    res.on("close", () => { if (!res.writableFinished) stub.cancelled++; });
    if (req.url === "/v1/embeddings") {
      stub.embeddingCalls++;
      const input: string[] = typeof body.input === "string" ? [body.input] : body.input;
      const data = input.map((t, index) => ({ object: "embedding", index, embedding: [t.length, [...t].filter((c) => c === "a").length, 0.5] }));
      return json(res, 200, { object: "list", data, model: body.model, usage: { prompt_tokens: input.join("").length, total_tokens: input.join("").length } });
    }
    stub.chatCalls++;
    const last = body.messages.at(-1);
    const text = typeof last.content === "string" ? last.content : "";
    if (text.includes("[fail]")) return json(res, 500, { error: { message: "upstream exploded", type: "server_error", code: null } });
    if (text.includes("[limit]")) return json(res, 429, { error: { message: "slow down", type: "rate_limit_error", code: "rate_limit_exceeded", param: null } }, { "retry-after": "7", "retry-after-ms": "6500" });
    if (text.includes("[overloaded]")) return json(res, 503, { error: { message: "overloaded", type: "server_error", code: null } }, { "retry-after": new Date(Date.now() + 30_000).toUTCString() });
    if (text.includes("[badwait]")) return json(res, 429, { error: { message: "slow down", type: "rate_limit_error", code: "rate_limit_exceeded", param: null } }, { "retry-after": "soon", "retry-after-ms": "-5" });
    if (text.includes("[hang]")) return;
    if (text.includes("[slow]")) await new Promise((resolve) => setTimeout(resolve, 150));
    if (text.includes("[badkey]")) return json(res, 401, { error: { message: "Incorrect API key provided: sk-upstr*******cret. You can find your API key at https://platform.example/account/api-keys.", type: "invalid_request_error", code: "invalid_api_key", param: null } });
    if (text.includes("[leaky]")) return json(res, 400, { error: { message: "Bad request for key sk-upstream-secret: context too long", type: "invalid_request_error", code: "context_length_exceeded", param: "messages" } });
    if (text.includes("[huge]")) {
      res.writeHead(200, { "content-type": body.stream ? "text/event-stream" : "application/json" });
      const piece = Buffer.alloc(1024 * 1024, 97);
      res.write(body.stream ? "data: \"" : "{\"x\":\"");
      const pump = () => {
        while (stub.hugeBytesSent < 256 * 1024 * 1024 && !res.destroyed) {
          stub.hugeBytesSent += piece.byteLength;
          if (!res.write(piece)) { res.once("drain", pump); return; }
        }
        res.end();
      };
      pump();
      return;
    }
    const usage = { prompt_tokens: text.length, completion_tokens: 7, total_tokens: text.length + 7 };
    const base = { id: "chatcmpl-stub", created: 1_700_000_000, model: `${body.model}-upstream` };
    const toolCall = Array.isArray(body.tools) && body.tools.length > 0 && last.role === "user";
    const content = last.role === "tool" ? `tool said: ${text}` : answerOf(text);
    const name = toolCall ? body.tools[0].function.name : "";
    const think = text.includes("[think]");
    const finish = toolCall ? "tool_calls" : text.includes("[long]") ? "length" : "stop";
    if (!body.stream || text.includes("[json]")) {
      const message = toolCall
        ? { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name, arguments: TOOL_ARGUMENTS.join("") } }] }
        : { role: "assistant", content, ...(think ? { reasoning_content: REASONING.join("") } : {}) };
      return json(res, 200, { ...base, object: "chat.completion", choices: [{ index: 0, message, finish_reason: finish }], usage });
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    const send = (delta: Record<string, unknown>, finish: string | null = null) =>
      res.write(`data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
    send({ role: "assistant", content: "" });
    if (think) for (const r of REASONING) send({ reasoning_content: r });
    // Two pieces: the host looks one chunk ahead, so the first reaches the client before the silence.
    if (text.includes("[stall]")) { send({ content: "partial " }); send({ content: "answer " }); return; }
    if (text.includes("[cut]")) { for (let i = 0; i < content.length; i += 4) send({ content: content.slice(i, i + 4) }); res.end(); return; }
    if (toolCall) {
      TOOL_ARGUMENTS.forEach((args, i) => send({ tool_calls: [{ index: 0, ...(i === 0 ? { id: "call_1", type: "function", function: { name, arguments: args } } : { function: { arguments: args } }) }] }));
    } else {
      for (let i = 0; i < content.length; i += 4) send({ content: content.slice(i, i + 4) });
    }
    send({}, finish);
    if (body.stream_options?.include_usage) res.write(`data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [], usage })}\n\n`);
    res.end("data: [DONE]\n\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stub.close = () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); });
  return stub;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}
