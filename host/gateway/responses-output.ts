/**
 * The effective answer as the Responses API's objects: a whole response, or the event
 * stream that builds one. Output items in order: reasoning (when the upstream sent any),
 * the assistant message (when it has text, or when there is nothing else), function calls.
 * A chat finish_reason of length or content_filter makes the response incomplete.
 */
import { randomUUID } from "node:crypto";
import type { ChatResponse } from "../boundary/chat.js";
import { answerText, usageView } from "../boundary/chat.js";
import type { ToolCallDelta } from "../boundary/stream.js";
import { sseNamedEvent } from "./sse.js";
import type { CompletionMeta, WireChatBody, WireError } from "./wire.js";
import { withKeys } from "../objects/with-keys.js";

type Json = Record<string, any>;

/** Ids of one response and its items. */
export interface ResponseIds { response: string; message: string; reasoning: string; call: (index: number) => string }

export function responseIds(): ResponseIds {
  const base = randomUUID().replaceAll("-", "");
  return { response: `resp_${base}`, message: `msg_${base}`, reasoning: `rs_${base}`, call: (i) => `fc_${base}_${i}` };
}

function statusOf(finishReason: string): { status: "completed" | "incomplete"; incomplete_details: { reason: string } | null } {
  if (finishReason === "length") return { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } };
  if (finishReason === "content_filter") return { status: "incomplete", incomplete_details: { reason: "content_filter" } };
  return { status: "completed", incomplete_details: null };
}

function usageOf(hooked: ChatResponse["usage"], upstream: CompletionMeta["usage"]): Json {
  const u = (upstream ?? {}) as Json;
  const usage = usageView(hooked);
  return {
    input_tokens: usage.input_tokens,
    input_tokens_details: { cached_tokens: Number(u.prompt_tokens_details?.cached_tokens) || 0 },
    output_tokens: usage.output_tokens,
    output_tokens_details: { reasoning_tokens: Number(u.completion_tokens_details?.reasoning_tokens) || 0 },
    total_tokens: usage.input_tokens + usage.output_tokens,
  };
}

/** The request's settings as the response echoes them. */
function echoOf(body: Json): Json {
  return {
    instructions: typeof body.instructions === "string" ? body.instructions : null,
    max_output_tokens: body.max_output_tokens ?? null,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: body.reasoning?.effort ?? null, summary: body.reasoning?.summary ?? null },
    store: false,
    temperature: body.temperature ?? null,
    text: body.text ?? { format: { type: "text" } },
    tool_choice: body.tool_choice ?? "auto",
    tools: Array.isArray(body.tools) ? body.tools : [],
    top_p: body.top_p ?? null,
    truncation: "disabled",
    user: body.user ?? null,
    metadata: body.metadata ?? {},
  };
}

function shell(ids: ResponseIds, meta: CompletionMeta, body: Json, created: number): Json {
  return { id: ids.response, object: "response", created_at: created, status: "in_progress", error: null, incomplete_details: null, model: meta.model, output: [], usage: null, ...echoOf(body) };
}

const messageItem = (id: string, text: string, status: string): Json => ({ id, type: "message", status, role: "assistant", content: status === "in_progress" ? [] : [{ type: "output_text", text, annotations: [], logprobs: [] }] });
const reasoningItem = (id: string, text: string): Json => ({ id, type: "reasoning", summary: text === "" ? [] : [{ type: "summary_text", text }] });
const callItem = (id: string, c: { id: string; function: { name: string; arguments: string } }, status: string): Json => ({ id, type: "function_call", status, call_id: c.id, name: c.function.name, arguments: status === "in_progress" ? "" : c.function.arguments });

/** A whole response for the effective answer. `reasoning` is null when the upstream sent none. */
export function toResponse(ids: ResponseIds, meta: CompletionMeta, body: Json, out: ChatResponse, reasoning: string | null): Json {
  const output: Json[] = [];
  if (reasoning !== null) output.push(reasoningItem(ids.reasoning, reasoning));
  if ((out.content !== null && out.content !== "") || out.tool_calls.length === 0) output.push(messageItem(ids.message, answerText(out.content), "completed"));
  out.tool_calls.forEach((c, i) => output.push(callItem(ids.call(i), c, "completed")));
  return withKeys(shell(ids, meta, body, meta.created), withKeys(statusOf(out.finish_reason), { output, usage: usageOf(out.usage, meta.usage) }));
}

/**
 * The event stream of one response, as text frames. Each method returns the frames for
 * what it was told; the route writes them. Items open when their first delta arrives and
 * close when another item starts or the response ends.
 */
export class ResponseEvents {
  private seq = 0;
  private readonly output: Json[] = [];
  private open: { kind: "message" | "reasoning" | "call"; index: number; text: string; call?: { id: string; function: { name: string; arguments: string } } } | null = null;
  private readonly calls = new Map<number, number>();
  private readonly created = Math.floor(Date.now() / 1000);

  constructor(private readonly ids: ResponseIds, private readonly meta: CompletionMeta, private readonly body: WireChatBody | Json) {}

  private event(type: string, data: Json): string {
    return sseNamedEvent(type, { type, sequence_number: this.seq++, ...data });
  }

  start(): string {
    const response = shell(this.ids, this.meta, this.body, this.created);
    return this.event("response.created", { response }) + this.event("response.in_progress", { response });
  }

  reasoning(delta: string): string {
    if (delta === "") return "";
    let out = "";
    if (this.open?.kind !== "reasoning") {
      out += this.close();
      this.open = { kind: "reasoning", index: this.output.length, text: "" };
      this.output.push(reasoningItem(this.ids.reasoning, ""));
      out += this.event("response.output_item.added", { output_index: this.open.index, item: reasoningItem(this.ids.reasoning, "") });
      out += this.event("response.reasoning_summary_part.added", { item_id: this.ids.reasoning, output_index: this.open.index, summary_index: 0, part: { type: "summary_text", text: "" } });
    }
    this.open.text += delta;
    return out + this.event("response.reasoning_summary_text.delta", { item_id: this.ids.reasoning, output_index: this.open.index, summary_index: 0, delta });
  }

  text(delta: string): string {
    if (delta === "") return "";
    let out = "";
    if (this.open?.kind !== "message") {
      out += this.close();
      this.open = { kind: "message", index: this.output.length, text: "" };
      this.output.push(messageItem(this.ids.message, "", "in_progress"));
      out += this.event("response.output_item.added", { output_index: this.open.index, item: messageItem(this.ids.message, "", "in_progress") });
      out += this.event("response.content_part.added", { item_id: this.ids.message, output_index: this.open.index, content_index: 0, part: { type: "output_text", text: "", annotations: [], logprobs: [] } });
    }
    this.open.text += delta;
    return out + this.event("response.output_text.delta", { item_id: this.ids.message, output_index: this.open.index, content_index: 0, delta, logprobs: [] });
  }

  toolCalls(deltas: readonly ToolCallDelta[]): string {
    let out = "";
    for (const d of deltas) {
      const id = this.ids.call(d.index);
      if (!(this.open?.kind === "call" && this.calls.get(d.index) === this.open.index)) {
        out += this.close();
        const call = { id: d.id ?? "", function: { name: d.function?.name ?? "", arguments: "" } };
        this.open = { kind: "call", index: this.output.length, text: "", call };
        this.calls.set(d.index, this.open.index);
        this.output.push(callItem(id, call, "in_progress"));
        out += this.event("response.output_item.added", { output_index: this.open.index, item: callItem(id, call, "in_progress") });
      } else if (d.function?.name) {
        this.open.call!.function.name += d.function.name;
      }
      const args = d.function?.arguments ?? "";
      if (args !== "") {
        this.open.call!.function.arguments += args;
        out += this.event("response.function_call_arguments.delta", { item_id: id, output_index: this.open.index, delta: args });
      }
    }
    return out;
  }

  private close(): string {
    const o = this.open;
    if (!o) return "";
    this.open = null;
    if (o.kind === "message") {
      const item = (this.output[o.index] = messageItem(this.ids.message, o.text, "completed"));
      return this.event("response.output_text.done", { item_id: item.id, output_index: o.index, content_index: 0, text: o.text, logprobs: [] })
        + this.event("response.content_part.done", { item_id: item.id, output_index: o.index, content_index: 0, part: item.content[0] })
        + this.event("response.output_item.done", { output_index: o.index, item });
    }
    if (o.kind === "reasoning") {
      const item = (this.output[o.index] = reasoningItem(this.ids.reasoning, o.text));
      return this.event("response.reasoning_summary_text.done", { item_id: item.id, output_index: o.index, summary_index: 0, text: o.text })
        + this.event("response.reasoning_summary_part.done", { item_id: item.id, output_index: o.index, summary_index: 0, part: item.summary[0] })
        + this.event("response.output_item.done", { output_index: o.index, item });
    }
    const item = (this.output[o.index] = callItem(this.output[o.index]!.id, o.call!, "completed"));
    return this.event("response.function_call_arguments.done", { item_id: item.id, output_index: o.index, name: item.name, arguments: item.arguments })
      + this.event("response.output_item.done", { output_index: o.index, item });
  }

  /** Closes what is open and ends the response; `withheldReasoning`: the upstream reasoned but its text is not relayed, so the item goes out without a summary. */
  finish(out: ChatResponse, withheldReasoning: boolean): string {
    let frames = this.close();
    if (withheldReasoning && !this.output.some((i) => i.type === "reasoning")) {
      const item = reasoningItem(this.ids.reasoning, "");
      frames += this.event("response.output_item.added", { output_index: this.output.length, item }) + this.event("response.output_item.done", { output_index: this.output.length, item });
      this.output.push(item);
    }
    if (!this.output.some((i) => i.type === "message" || i.type === "function_call")) frames += this.emptyMessage();
    const { status, incomplete_details } = statusOf(out.finish_reason);
    const response = withKeys(shell(this.ids, this.meta, this.body, this.created), { status, incomplete_details, output: this.output, usage: usageOf(out.usage, this.meta.usage) });
    return frames + this.event(status === "completed" ? "response.completed" : "response.incomplete", { response });
  }

  /** An answer with no text and no calls still has its (empty) message, as OpenAI sends it. */
  private emptyMessage(): string {
    const index = this.output.length;
    const item = messageItem(this.ids.message, "", "completed");
    this.output.push(item);
    return this.event("response.output_item.added", { output_index: index, item: messageItem(this.ids.message, "", "in_progress") })
      + this.event("response.output_item.done", { output_index: index, item });
  }

  /** The error event after the stream began: both shapes clients read (flat, and nested under `error`, which the openai client raises). */
  error(e: WireError): string {
    return this.event("error", { code: e.error.code, message: e.error.message, param: e.error.param, error: e.error });
  }
}
