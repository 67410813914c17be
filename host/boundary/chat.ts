import { schemaProblem } from "../pipeline/validators.js";
import { answerProblem } from "./model-answer.js";
import { fail, OK, type Checked } from "../pipeline/result.js";
import type { StageRunner } from "./stage-runner.js";
import { runOperation } from "./operation.js";
import { instanceOf } from "./instance.js";
import type { BoundaryOptions, BoundaryResult, CallContext, OperationContext } from "./types.js";

/** One message of a chat request or answer, in the OpenAI chat shape. */
export interface ChatMessage { role: "system" | "user" | "assistant" | "tool"; content: string | null; tool_calls?: ToolCallOut[]; tool_call_id?: string; name?: string }
/** A tool call the model asked for, with its arguments as JSON text. */
export interface ToolCallOut { id: string; type: "function"; function: { name: string; arguments: string } }
/** What `host.chat` and `host.chatStream` take: the model, the messages and the call's parameters. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: { name: string; description?: string; parameters: Record<string, unknown> }[];
  params?: { temperature?: number; max_tokens?: number; top_p?: number; stop?: string[] };
}
/** The model's answer as the wrapped call returns it to `host.chat`. */
export interface ChatResponse {
  content: string | null;
  tool_calls: ToolCallOut[];
  finish_reason: string;
  usage: { input_tokens: number; output_tokens: number };
  provider_request_id?: string | null;
}

/** The after payload; a short-circuit result is read the same way, with defaults for what a cache may omit. */
export function chatAfterPayload(model: string, r: Partial<ChatResponse> & { content?: string | null }): Record<string, unknown> {
  return {
    model,
    content: r.content ?? null,
    tool_calls: r.tool_calls ?? [],
    finish_reason: r.finish_reason ?? "stop",
    usage: r.usage ?? { input_tokens: 0, output_tokens: 0 },
    ...(r.provider_request_id !== undefined ? { provider_request_id: r.provider_request_id } : {}),
  };
}

/**
 * The model's tool calls must be a valid action (seed 000): ids present and unique (the
 * next turn pairs results with them), a function name, and arguments that parse as a JSON
 * object. Broken arguments are reported here, at the boundary, never handed on.
 * @example checkToolCalls([{ id: "t1", type: "function", function: { name: "search", arguments: "{\"limit\": 5," } }]) // MODEL_OUTPUT_INVALID
 */
export function checkToolCalls(calls: readonly ToolCallOut[]): Checked {
  const ids = new Set(calls.map((c) => c.id));
  if (ids.size !== calls.length) return fail("MODEL_OUTPUT_INVALID", "the model returned duplicate tool_call ids", { ids: calls.map((c) => c.id) });
  for (const [index, c] of calls.entries()) {
    const where = { index, id: c.id, name: c.function.name };
    if (c.id === "") return fail("MODEL_OUTPUT_INVALID", `tool_call ${index} has no id`, where);
    if (c.function.name === "") return fail("MODEL_OUTPUT_INVALID", `tool_call ${index} (${c.id}) has no function name`, where);
    if (!isJsonObject(c.function.arguments)) {
      // The arguments are the model's text: their length is reported, never their content.
      return fail("MODEL_OUTPUT_INVALID", `tool_call ${index} (${c.id}, ${c.function.name}) has arguments that are not a JSON object (${c.function.arguments.length} characters)`, where);
    }
  }
  return OK;
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

export function chatInput(ctx: CallContext, request: ChatRequest, stream = false): Record<string, unknown> {
  return { ...request, purpose: ctx.purpose ?? "action", stream };
}

export function chatRequestOf(input: Record<string, unknown>): ChatRequest {
  const { purpose: _purpose, stream: _stream, ...request } = input;
  return request as unknown as ChatRequest;
}

export function chat(runner: StageRunner, ctx: CallContext, request: ChatRequest, execute: (request: ChatRequest, op: OperationContext) => Promise<ChatResponse>, options?: BoundaryOptions): Promise<BoundaryResult<ChatResponse>> {
  const purpose = ctx.purpose ?? "action";
  return runOperation<ChatResponse, ChatResponse>(runner, {
    operation: "chat",
    ctx,
    before: "model.chat.before",
    after: "model.chat.after",
    payload: chatInput(ctx, request),
    target: { purpose, modelId: request.model, instance: instanceOf(ctx), spaceId: ctx.spaceId },
    finalCheck: () => OK,
    served: (result) => {
      const payload = chatAfterPayload(request.model, (result ?? {}) as Partial<ChatResponse>);
      const problem = typeof result === "object" && result !== null ? schemaProblem("model.chat.after", payload) : "result must be a map";
      if (problem !== null) return fail("OUTPUT_INVALID", `short-circuit result is not a chat response: ${problem}`);
      const calls = checkToolCalls(payload.tool_calls as ToolCallOut[]);
      return calls.ok ? { ok: true, real: payload as unknown as ChatResponse } : calls;
    },
    execute: (input, op) => execute(chatRequestOf(input), op),
    checkReal: (real) => { const shape = answerProblem(real); return shape.ok ? checkToolCalls(real.tool_calls ?? []) : shape; },
    afterPayload: (_input, real) => chatAfterPayload(request.model, real),
    output: (after) => {
      const { model: _model, annotations: _a, ...response } = after;
      return response as unknown as ChatResponse;
    },
    ...(options ? { options } : {}),
  });
}
