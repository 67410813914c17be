/**
 * A deterministic stand-in for a chat model, a tool set and an embedding model: the demo
 * runs offline and prints the same trace every time.
 */
import { createHash } from "node:crypto";
import type { ChatRequest, ChatResponse } from "../boundary/chat.js";
import { answerText } from "../boundary/chat.js";
import type { StreamChunk } from "../boundary/stream.js";

let calls = 0;
/** How many times the model really ran (a cache hit does not call it). */
export function modelCalls(): number {
  return calls;
}

export async function localModel(request: ChatRequest): Promise<ChatResponse> {
  calls++;
  const last = request.messages.at(-1);
  const usage = { input_tokens: request.messages.reduce((n, m) => n + Math.ceil(answerText(m.content).length / 4), 0), output_tokens: 0 };
  if (last?.role === "user" && /orders/i.test(answerText(last.content))) {
    return { content: null, tool_calls: [{ id: "call_orders_1", type: "function", function: { name: "orders.search", arguments: JSON.stringify({ customer: "alice", limit: 500 }) } }], finish_reason: "tool_calls", usage: { ...usage, output_tokens: 12 } };
  }
  if (last?.role === "tool") {
    const content = "   Alice has 3 open orders. Her contact is alice@example.com.   ";
    return { content, tool_calls: [], finish_reason: "stop", usage: { ...usage, output_tokens: 15 } };
  }
  return { content: `  You said: ${answerText(last?.content)}  `, tool_calls: [], finish_reason: "stop", usage: { ...usage, output_tokens: 6 } };
}

/** A streamed answer whose e-mail address and card number are split across chunks. */
export async function* localModelStream(_request: ChatRequest): AsyncGenerator<StreamChunk> {
  calls++;
  const parts = ["Your receipt was sent to bob.sm", "ith@exam", "ple.org and charged to card 4111 1111 ", "1111 1111. Call +1 415 555 ", "0134 with questions."];
  for (const [i, delta] of parts.entries()) {
    yield { delta, ...(i === parts.length - 1 ? { finish_reason: "stop", usage: { input_tokens: 9, output_tokens: 31 } } : {}) };
  }
}

export const tools = {
  "orders.search": {
    schema: { type: "object", additionalProperties: false, required: ["customer", "limit"], properties: { customer: { type: "string" }, limit: { type: "integer", minimum: 1, maximum: 100 } } },
    run: async (args: Record<string, unknown>) => ({
      rows: Array.from({ length: Math.min(3, Number(args.limit)) }, (_, i) => ({ id: `ord-${i + 1}`, customer: "alice", email: "alice@example.com" })),
      limit_used: args.limit,
    }),
  },
  "files.read": {
    schema: { type: "object", additionalProperties: false, required: ["path"], properties: { path: { type: "string" } } },
    run: async (args: Record<string, unknown>) => ({ path: args.path, text: "quarterly report" }),
  },
} as const;

/** 8-dimensional vectors derived from a hash of each text. */
export async function localEmbedder(texts: string[]): Promise<{ vectors: number[][] }> {
  return {
    vectors: texts.map((t) => [...createHash("sha256").update(t).digest().subarray(0, 8)].map((b) => Math.round((b / 255) * 1000) / 1000)),
  };
}
