/**
 * A model server the coding-agent CLIs talk to offline, written for the tests: Anthropic
 * Messages (Claude Code), OpenAI Responses (Codex), Gemini generateContent and
 * streamGenerateContent (Gemini CLI) and chat completions (Copilot CLI's BYOK provider).
 *
 * It scripts one turn: while the conversation holds no tool result it asks for the agent's
 * shell tool with the scripted command; once a tool result is there it answers with text.
 * Every request is kept, so a test can read what the model was told (a hook's reason reaches
 * the model inside the tool result).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface ModelScript {
  /** The shell command the model asks the agent to run. */
  command: string;
  /** The final answer once a tool result came back. */
  answer?: string;
}

export interface ModelRequest {
  method: string;
  /** Path and query, as the agent sent them. */
  url: string;
  body: unknown;
  /** Which protocol the request spoke, by its path. */
  protocol: "anthropic" | "responses" | "gemini" | "chat" | "other";
  /** Tool results the agent sent back to the model, as text. */
  toolResults: string[];
}

export interface FakeModel {
  url: string;
  requests: ModelRequest[];
  /** Every tool result the model was told, in order. */
  toolResults(): string[];
  /** The tool calls the model asked for, as the arguments it sent. */
  toolCalls: Array<{ protocol: ModelRequest["protocol"]; name: string; args: Record<string, unknown> }>;
  close(): Promise<void>;
}

export type Json = Record<string, unknown>;
const asObj = (v: unknown): Json => (v && typeof v === "object" && !Array.isArray(v) ? (v as Json) : {});
const asArr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

const SHELL_TOOLS = ["Bash", "bash", "shell", "shell_command", "exec_command", "local_shell", "run_shell_command"];

export function protocolOf(path: string): ModelRequest["protocol"] {
  if (path.includes("/messages")) return "anthropic";
  if (path.endsWith("/responses")) return "responses";
  if (path.includes("generateContent") || path.includes("GenerateContent")) return "gemini";
  if (path.endsWith("/chat/completions")) return "chat";
  return "other";
}

function text(v: unknown): string {
  if (typeof v === "string") return v;
  return JSON.stringify(v);
}

/** Tool results in a request, whatever the protocol. */
export function toolResultsOf(protocol: ModelRequest["protocol"], body: Json): string[] {
  const out: string[] = [];
  if (protocol === "anthropic") {
    for (const m of asArr(body.messages)) for (const b of asArr(asObj(m).content)) if (asObj(b).type === "tool_result") out.push(text(asObj(b).content));
  } else if (protocol === "responses") {
    for (const i of asArr(body.input)) {
      const t = asObj(i).type;
      if (t === "function_call_output" || t === "custom_tool_call_output" || t === "local_shell_call_output") out.push(text(asObj(i).output));
    }
  } else if (protocol === "gemini") {
    for (const c of asArr(body.contents)) for (const p of asArr(asObj(c).parts)) if (asObj(p).functionResponse) out.push(text(asObj(asObj(p).functionResponse).response));
  } else if (protocol === "chat") {
    for (const m of asArr(body.messages)) if (asObj(m).role === "tool") out.push(text(asObj(m).content));
  }
  return out;
}

export interface ShellTool { name: string; schema: Json }

export function shellToolOf(protocol: ModelRequest["protocol"], body: Json): ShellTool | undefined {
  const tools: ShellTool[] = [];
  if (protocol === "gemini") {
    for (const t of asArr(body.tools)) for (const d of asArr(asObj(t).functionDeclarations)) {
      tools.push({ name: String(asObj(d).name), schema: asObj(asObj(d).parametersJsonSchema ?? asObj(d).parameters) });
    }
  } else {
    for (const t of asArr(body.tools)) {
      const o = asObj(t);
      const fn = asObj(o.function);
      if (typeof fn.name === "string") tools.push({ name: fn.name, schema: asObj(fn.parameters) });
      else if (typeof o.name === "string") tools.push({ name: o.name, schema: asObj(o.input_schema ?? o.parameters) });
      else if (o.type === "local_shell") tools.push({ name: "local_shell", schema: {} });
    }
  }
  for (const name of SHELL_TOOLS) {
    const t = tools.find((x) => x.name === name);
    if (t) return t;
  }
  return undefined;
}

/** Arguments for the agent's shell tool, shaped by its own schema. */
export function shellArgs(tool: ShellTool, command: string): Record<string, unknown> {
  const props = asObj(tool.schema.properties);
  const required = asArr(tool.schema.required).map(String);
  const args: Record<string, unknown> = {};
  const commandKey = ["command", "cmd"].find((k) => k in props) ?? "command";
  args[commandKey] = asObj(props[commandKey]).type === "array" ? ["bash", "-lc", command] : command;
  for (const k of required) {
    if (k in args) continue;
    const type = asObj(props[k]).type;
    if (k === "description") args[k] = "Run the scripted command";
    else if (type === "boolean") args[k] = false;
    else if (type === "number" || type === "integer") args[k] = 30;
    else args[k] = "";
  }
  if ("description" in props && !("description" in args)) args.description = "Run the scripted command";
  return args;
}

function sse(res: ServerResponse, events: Array<{ event?: string; data: unknown }>): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const e of events) res.write(`${e.event ? `event: ${e.event}\n` : ""}data: ${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}\n\n`);
  res.end();
}

export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

let ids = 0;
const nextId = (prefix: string) => `${prefix}_${(++ids).toString(36).padStart(6, "0")}`;

export function anthropic(res: ServerResponse, body: Json, call: { name: string; args: Json } | undefined, answer: string): void {
  const model = String(body.model ?? "claude-test");
  const usage = { input_tokens: 12, output_tokens: 6, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = { id: nextId("msg"), type: "message", role: "assistant", model, content: [] as unknown[], stop_reason: null, stop_sequence: null, usage };
  const block = call ? { type: "tool_use", id: nextId("toolu"), name: call.name, input: {} } : { type: "text", text: "" };
  const delta = call ? { type: "input_json_delta", partial_json: JSON.stringify(call.args) } : { type: "text_delta", text: answer };
  const stop = call ? "tool_use" : "end_turn";
  if (body.stream !== true) {
    json(res, 200, { ...message, content: [call ? { ...block, input: call.args } : { type: "text", text: answer }], stop_reason: stop });
    return;
  }
  sse(res, [
    { event: "message_start", data: { type: "message_start", message } },
    { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: block } },
    { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta } },
    { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
    { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 6 } } },
    { event: "message_stop", data: { type: "message_stop" } },
  ]);
}

function responses(res: ServerResponse, body: Json, call: { name: string; args: Json } | undefined, answer: string): void {
  const id = nextId("resp");
  const item = call
    ? call.name === "local_shell"
      ? { type: "local_shell_call", id: nextId("lsh"), call_id: nextId("call"), status: "completed", action: { type: "exec", command: call.args.command, env: {} } }
      : { type: "function_call", id: nextId("fc"), call_id: nextId("call"), name: call.name, arguments: JSON.stringify(call.args), status: "completed" }
    : { type: "message", id: nextId("msg"), role: "assistant", status: "completed", content: [{ type: "output_text", text: answer, annotations: [] }] };
  const usage = { input_tokens: 12, input_tokens_details: { cached_tokens: 0 }, output_tokens: 6, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 18 };
  const response = { id, object: "response", created_at: Math.floor(Date.now() / 1000), status: "completed", model: body.model, output: [item], usage };
  if (body.stream !== true) { json(res, 200, response); return; }
  sse(res, [
    { event: "response.created", data: { type: "response.created", response: { ...response, status: "in_progress", output: [] } } },
    { event: "response.output_item.added", data: { type: "response.output_item.added", output_index: 0, item } },
    ...(call ? [] : [{ event: "response.output_text.delta", data: { type: "response.output_text.delta", output_index: 0, content_index: 0, item_id: item.id, delta: answer } }]),
    { event: "response.output_item.done", data: { type: "response.output_item.done", output_index: 0, item } },
    { event: "response.completed", data: { type: "response.completed", response } },
  ]);
}

export function gemini(res: ServerResponse, path: string, body: Json, call: { name: string; args: Json } | undefined, answer: string): void {
  const generation = asObj(body.generationConfig);
  // Gemini CLI asks side questions (who speaks next, which model routes) with a JSON schema.
  const wantsJson = generation.responseMimeType === "application/json";
  const reply = wantsJson ? JSON.stringify({ reasoning: "The scripted turn is over.", next_speaker: "user", model_choice: "flash", complexity_reasoning: "simple", complexity_score: 1 }) : answer;
  const part = call ? { functionCall: { name: call.name, args: call.args } } : { text: reply };
  const chunk = {
    candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 6, totalTokenCount: 18 },
    modelVersion: "gemini-test",
  };
  if (path.includes("streamGenerateContent")) sse(res, [{ data: chunk }]);
  else json(res, 200, chunk);
}

export function chat(res: ServerResponse, body: Json, call: { name: string; args: Json } | undefined, answer: string): void {
  const id = nextId("chatcmpl");
  const model = String(body.model ?? "gpt-test");
  const created = Math.floor(Date.now() / 1000);
  const toolCall = call ? { index: 0, id: nextId("call"), type: "function", function: { name: call.name, arguments: JSON.stringify(call.args) } } : undefined;
  const usage = { prompt_tokens: 12, completion_tokens: 6, total_tokens: 18 };
  if (body.stream !== true) {
    const message = toolCall ? { role: "assistant", content: null, tool_calls: [{ ...toolCall, index: undefined }] } : { role: "assistant", content: answer };
    json(res, 200, { id, object: "chat.completion", created, model, choices: [{ index: 0, message, finish_reason: toolCall ? "tool_calls" : "stop" }], usage });
    return;
  }
  const chunk = (delta: unknown, finish: string | null, extra: Json = {}) => ({ id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason: finish }], ...extra });
  sse(res, [
    { data: chunk(toolCall ? { role: "assistant", content: null, tool_calls: [toolCall] } : { role: "assistant", content: answer }, null) },
    { data: chunk({}, toolCall ? "tool_calls" : "stop", { usage }) },
    { data: "[DONE]" },
  ]);
}

export async function readBody(req: IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks).toString("utf8");
  if (!raw) return {};
  try { return asObj(JSON.parse(raw)); } catch { return { raw }; }
}

/** Starts the scripted model on 127.0.0.1 (port 0 picks a free one). */
export async function startFakeModel(script: ModelScript, port = 0, onRequest?: () => void): Promise<FakeModel> {
  const answer = script.answer ?? "Done: the scripted turn is over.";
  const requests: ModelRequest[] = [];
  const toolCalls: FakeModel["toolCalls"] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const url = req.url ?? "/";
      const path = url.split("?")[0]!;
      const body = req.method === "POST" ? await readBody(req) : {};
      const protocol = protocolOf(path);
      const results = toolResultsOf(protocol, body);
      requests.push({ method: req.method ?? "GET", url, body, protocol, toolResults: results });
      const tool = results.length === 0 ? shellToolOf(protocol, body) : undefined;
      const call = tool ? { name: tool.name, args: shellArgs(tool, script.command) } : undefined;
      if (call) toolCalls.push({ protocol, ...call });
      onRequest?.();
      if (req.method === "HEAD" || req.method === "OPTIONS") { res.writeHead(200).end(); return; }
      if (protocol === "anthropic") {
        if (path.endsWith("/count_tokens")) { json(res, 200, { input_tokens: 12 }); return; }
        anthropic(res, body, call, answer);
      } else if (protocol === "responses") responses(res, body, call, answer);
      else if (protocol === "gemini") gemini(res, path, body, call, answer);
      else if (protocol === "chat") chat(res, body, call, answer);
      else if (path.endsWith(":countTokens")) json(res, 200, { totalTokens: 12 });
      else if (path.endsWith("/models")) json(res, 200, { object: "list", data: [{ id: "gpt-test", object: "model", created: 0, owned_by: "test" }] });
      else json(res, 404, { error: { message: `the fake model has no ${req.method} ${path}` } });
    })().catch((e: unknown) => { if (!res.headersSent) json(res, 500, { error: { message: String(e) } }); });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    requests,
    toolCalls,
    toolResults: () => requests.flatMap((r) => r.toolResults),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
