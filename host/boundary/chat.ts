import { schemaProblem } from "../pipeline/validators.js";
import { canonicalJson } from "../pipeline/canonical-json.js";
import { declaredView, restoreView } from "../pipeline/declared-view.js";
import { getPoint } from "../pipeline/points.js";
import { usageView } from "../pipeline/usage.js";

export { usageView, type UsageView } from "../pipeline/usage.js";
import { answerProblem } from "./model-answer.js";
import { fail, OK, type Checked } from "../pipeline/result.js";
import type { StageRunner } from "../engine/stages.js";
import { runOperation } from "../engine/run-operation.js";
import { callOnce } from "../engine/real-call.js";
import { instanceOf } from "./instance.js";
import type { BoundaryOptions, BoundaryResult, CallContext, OperationContext } from "../engine/call-types.js";
import { withKeys } from "../objects/with-keys.js";
import type { ErrorData } from "../errors/sluice-error.js";

/** A content part of a message or an answer (ABI 1.1); a part of any other type passes through untouched. */
export type ContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string; detail?: string } }
  | { type: "input_audio"; input_audio: { data: string; format: string } }
  | { type: "file"; file: { file_data?: string; file_id?: string; filename?: string } }
  | { type: "refusal"; refusal: string }
  | { type: string; [field: string]: unknown };

/** A chat message as providers and frameworks send it; fields no point declares pass through untouched. */
export interface ChatMessage {
  role: "system" | "developer" | "user" | "assistant" | "tool";
  content: string | null | ContentPart[];
  tool_calls?: ToolCallOut[];
  tool_call_id?: string;
  name?: string;
  refusal?: string | null;
  /** The reasoning text of an assistant turn. */
  reasoning_content?: string | null;
  [field: string]: unknown;
}
/** A tool call the model asked for, with its arguments as JSON text. */
export interface ToolCallOut { id: string; type: "function"; function: { name: string; arguments: string } }
/** What `host.chat` and `host.chatStream` take: the model, the messages and the call's parameters. */
export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: { name: string; description?: string; parameters: Record<string, unknown>; strict?: boolean | null; [field: string]: unknown }[];
  /** The declared params (hooks may change them) and any provider-specific option (passes through untouched, never patchable). */
  params?: {
    temperature?: number; max_tokens?: number; max_completion_tokens?: number; top_p?: number; stop?: string | string[];
    seed?: number; frequency_penalty?: number; presence_penalty?: number; logit_bias?: Record<string, number>;
    tool_choice?: "none" | "auto" | "required" | Record<string, unknown>; response_format?: { type: string; [field: string]: unknown };
    parallel_tool_calls?: boolean;
    [option: string]: unknown;
  };
  [field: string]: unknown;
}
/** Token counts in either naming (the host's, or the OpenAI wire's with its details); extras pass through. */
export interface ChatUsage {
  input_tokens?: number;
  output_tokens?: number;
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number; [field: string]: unknown };
  completion_tokens_details?: { reasoning_tokens?: number; [field: string]: unknown };
  [field: string]: unknown;
}
/** The model's answer as the wrapped call returns it to `host.chat`. */
export interface ChatResponse {
  content: string | null | ContentPart[];
  refusal?: string | null;
  reasoning_content?: string | null;
  tool_calls: ToolCallOut[];
  finish_reason: string;
  usage: ChatUsage;
  provider_request_id?: string | null;
  [field: string]: unknown;
}

const BEFORE = getPoint("model.chat.before").schema;
const AFTER = getPoint("model.chat.after").schema;
const AFTER_FIELDS = AFTER.properties as Record<string, Readonly<Record<string, unknown>>>;
/** The answer fields a hook may change; every other field of the answer is the model's, untouched. */
const ANSWER_TEXT = ["content", "refusal", "reasoning_content"] as const;

/**
 * Answer or message content as one string, for callers that need plain text (a wire
 * format without parts, a demo): the text of its text parts, joined without a separator.
 * @example answerText([{ type: "text", text: "a" }, { type: "image_url", image_url: { url: "u" } }, { type: "text", text: "b" }]) // "ab"
 */
export function answerText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as ContentPart[]).map((p) => (p?.type === "text" && typeof p.text === "string" ? p.text : "")).join("");
}

/** The after payload (the declared view of the answer); a short-circuit result is read the same way, with defaults for what a cache may omit. */
export function chatAfterPayload(model: string, r: Partial<ChatResponse> & { content?: unknown }): Record<string, unknown> {
  return declaredView(AFTER, {
    model,
    content: r.content ?? null,
    ...(r.refusal !== undefined ? { refusal: r.refusal } : {}),
    ...(r.reasoning_content !== undefined ? { reasoning_content: r.reasoning_content } : {}),
    tool_calls: r.tool_calls ?? [],
    finish_reason: r.finish_reason ?? "stop",
    usage: usageView(r.usage),
    ...(r.provider_request_id !== undefined ? { provider_request_id: r.provider_request_id } : {}),
  }) as Record<string, unknown>;
}

/**
 * The caller's answer: the real one, with only the text fields the after hooks changed
 * written back (undeclared parts of them restored); a field no hook changed is the
 * model's own, byte for byte. `seen` is what the after stage was given (`chatAfterPayload` of `real`).
 */
export function chatOutput(real: ChatResponse, seen: Record<string, unknown>, after: Record<string, unknown>): ChatResponse {
  const out: Record<string, unknown> = { ...real };
  for (const key of ANSWER_TEXT) {
    if (canonicalJson(seen[key]) === canonicalJson(after[key])) continue;
    if (after[key] === undefined) delete out[key];
    else out[key] = restoreView(AFTER_FIELDS[key]!, real[key], after[key]);
  }
  return out as ChatResponse;
}

/**
 * The model's tool calls must be a valid action (abi/README.md §4.4): ids present and unique (the
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

/**
 * A before hook's short-circuit result as the answer the model would have given, streamed
 * or not; refused (OUTPUT_INVALID, MODEL_OUTPUT_INVALID) when it is not a valid answer.
 */
export function servedAnswer(model: string): (result: unknown) => { ok: true; real: ChatResponse } | { ok: false; error: ErrorData } {
  return (result) => {
    const payload = chatAfterPayload(model, (result ?? {}) as Partial<ChatResponse>);
    const problem = typeof result === "object" && result !== null ? schemaProblem("model.chat.after", payload) : "result must be a map";
    if (problem !== null) return fail("OUTPUT_INVALID", `short-circuit result is not a chat response: ${problem}`);
    const calls = checkToolCalls(payload.tool_calls as ToolCallOut[]);
    const { model: _model, ...real } = payload;
    return calls.ok ? { ok: true, real: real as unknown as ChatResponse } : calls;
  };
}

/** What model.chat.before is given, before the declared view is taken. */
function beforeInput(ctx: CallContext, request: ChatRequest, stream: boolean): Record<string, unknown> {
  return withKeys(request, { purpose: ctx.purpose ?? "action", stream });
}

/** model.chat.before's payload: the declared view of the request, with the call's purpose and whether it streams. */
export function chatInput(ctx: CallContext, request: ChatRequest, stream = false): Record<string, unknown> {
  return declaredView(BEFORE, beforeInput(ctx, request, stream)) as Record<string, unknown>;
}

/**
 * The request the model gets: the caller's, with what the before hooks changed written
 * back and everything undeclared (provider options, extra message and part fields) as
 * it came. With no hook bound it is the caller's request, deep-equal.
 */
export function chatRequestOf(ctx: CallContext, request: ChatRequest, input: Record<string, unknown>, stream = false): ChatRequest {
  const original = beforeInput(ctx, request, stream);
  const restored = restoreView(BEFORE, original, input) as Record<string, unknown>;
  for (const key of ["purpose", "stream"]) {
    if (Object.hasOwn(request, key)) restored[key] = request[key];
    else delete restored[key];
  }
  return restored as ChatRequest;
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
    served: servedAnswer(request.model),
    call: callOnce((input, op) => execute(chatRequestOf(ctx, request, input), op), options?.retries),
    checkReal: (real) => { const shape = answerProblem(real); return shape.ok ? checkToolCalls(real.tool_calls ?? []) : shape; },
    afterPayload: (_input, real) => chatAfterPayload(request.model, real),
    output: (after, real, seen) => chatOutput(real, seen, after),
  });
}
