/**
 * The operation the Messages route wraps: a message from an Anthropic upstream, whole or as
 * its event stream. Each upstream event becomes one stream chunk the host runs its hooks on
 * (text deltas as answer text, thinking deltas as reasoning text, tool_use blocks as tool
 * call deltas, the stop reason and usage), and is kept as it came (its `data` text) so the
 * route can relay it byte for byte once the hooks have passed it (anthropic-relay.ts).
 */
import { SluiceError } from "../errors/sluice-error.js";
import type { ChatRequest, ChatResponse, ToolCallOut } from "../boundary/chat.js";
import type { StreamChunk, ToolCallDelta } from "../boundary/stream.js";
import type { OperationContext } from "../engine/call-types.js";
import { toAnthropicUpstream, type AnthropicBody, type AnthropicView } from "./anthropic-request.js";
import { sanitiseUpstreamError } from "./upstream-error.js";
import type { Upstream } from "./upstream.js";
import { withKeys } from "../objects/with-keys.js";

type Json = Record<string, any>;

/** Which text channel an event's delta belongs to. */
export type TextChannel = "content" | "reasoning";

/** One upstream event as it came, with what the relay needs to know of it. */
export interface RawEvent {
  type: string;
  data: string;
  json: Json;
  /** The event carries text of this channel (`text` is it). */
  channel?: TextChannel;
  text?: string;
}

export interface AnthropicFacts {
  /** The upstream's whole message (without streaming). */
  message?: Json;
  /** The upstream's events in order (streaming). */
  events: RawEvent[];
  /** The type of each upstream content block, by its index. */
  blocks: Map<number, string>;
}

export function anthropicFacts(): AnthropicFacts {
  return { events: [], blocks: new Map() };
}

function usageOf(u: Json | undefined): ChatResponse["usage"] {
  const n = (v: unknown) => Math.max(0, Math.trunc(Number(v) || 0));
  return { input_tokens: n(u?.input_tokens) + n(u?.cache_read_input_tokens) + n(u?.cache_creation_input_tokens), output_tokens: n(u?.output_tokens) };
}

/**
 * Anthropic's stop_reason as the finish reason the hooks know from chat completions, so a
 * hook reads one vocabulary whatever the protocol (response-cache stores only "stop"
 * answers). The client still gets the upstream's own stop_reason.
 */
export function chatFinishOf(stopReason: string): string {
  if (stopReason === "end_turn" || stopReason === "stop_sequence") return "stop";
  if (stopReason === "tool_use") return "tool_calls";
  if (stopReason === "max_tokens" || stopReason === "model_context_window_exceeded") return "length";
  if (stopReason === "refusal") return "content_filter";
  return stopReason;
}

/** An Anthropic message as the result the hooks wrap: text blocks as the answer, thinking as reasoning, tool_use blocks as tool calls. */
export function fromMessage(json: Json): ChatResponse {
  if (!Array.isArray(json?.content)) throw new SluiceError("UPSTREAM_FAILED", "the upstream sent a malformed message (no content array)", {});
  const blocks = json.content as Json[];
  const text = blocks.filter((b) => b?.type === "text").map((b) => String(b.text ?? "")).join("");
  const thinking = blocks.filter((b) => b?.type === "thinking");
  const calls: ToolCallOut[] = blocks.filter((b) => b?.type === "tool_use").map((b) => ({ id: String(b.id ?? ""), type: "function", function: { name: String(b.name ?? ""), arguments: JSON.stringify(b.input ?? {}) } }));
  return {
    content: text,
    ...(thinking.length > 0 ? { reasoning_content: thinking.map((b) => String(b.thinking ?? "")).join("") } : {}),
    tool_calls: calls,
    finish_reason: typeof json.stop_reason === "string" ? chatFinishOf(json.stop_reason) : "stop",
    usage: usageOf(json.usage),
    provider_request_id: typeof json.id === "string" ? json.id : null,
  };
}

/** host.chat's operation: one upstream message. */
export function messageCall(upstream: Upstream, body: AnthropicBody, view: AnthropicView, headers: Record<string, string>, facts: AnthropicFacts) {
  return async (effective: ChatRequest, op: OperationContext): Promise<ChatResponse> => {
    facts.message = await upstream.json("/messages", toAnthropicUpstream(body, view, effective), op.signal, headers);
    return fromMessage(facts.message);
  };
}

/** host.chatStream's operation: the upstream's events, one chunk each. */
export function eventsCall(upstream: Upstream, body: AnthropicBody, view: AnthropicView, headers: Record<string, string>, facts: AnthropicFacts) {
  return async function* (effective: ChatRequest, op: OperationContext): AsyncGenerator<StreamChunk> {
    const signal = op.signal;
    const payload = toAnthropicUpstream(body, view, effective);
    // tool_use blocks are numbered among the content blocks; the host numbers tool calls from 0.
    const tools = new Map<number, { index: number; arguments: boolean; input: unknown }>();
    let usage: Json = {};
    let stopped = false;
    for await (const data of upstream.events("/messages", payload, signal, headers)) {
      let json: Json;
      try { json = JSON.parse(data); } catch { throw new SluiceError("UPSTREAM_FAILED", "the upstream sent a stream event that is not JSON"); }
      if (typeof json !== "object" || json === null || typeof json.type !== "string") throw new SluiceError("UPSTREAM_FAILED", "the upstream sent a stream event without a type");
      // A plain message to a stream request: relayed as the events that build it.
      if (json.type === "message") { yield* wholeMessage(json, facts); return; }
      const event: RawEvent = { type: json.type, data, json };
      const chunk: StreamChunk = {};
      switch (json.type) {
        case "error": {
          const error = sanitiseUpstreamError(200, json.error);
          throw new SluiceError("UPSTREAM_FAILED", `the upstream's stream failed${error.type ? ` (${error.type})` : ""}: ${error.message ?? "unknown error"}`, { upstream: error });
        }
        case "message_start":
          usage = withKeys(usage, json.message?.usage ?? {});
          if (typeof json.message?.id === "string") chunk.provider_request_id = json.message.id;
          chunk.usage = usageOf(usage);
          break;
        case "content_block_start": {
          const block = json.content_block ?? {};
          facts.blocks.set(json.index, String(block.type));
          if (block.type === "tool_use" || block.type === "server_tool_use") {
            if (block.type === "tool_use") {
              const call = { index: tools.size, arguments: false, input: block.input };
              tools.set(json.index, call);
              chunk.tool_calls = [{ index: call.index, id: String(block.id ?? ""), function: { name: String(block.name ?? ""), arguments: "" } }];
            }
          } else if (block.type === "text" && typeof block.text === "string" && block.text !== "") {
            event.channel = "content"; event.text = block.text; chunk.delta = block.text;
          } else if (block.type === "thinking" && typeof block.thinking === "string" && block.thinking !== "") {
            event.channel = "reasoning"; event.text = block.thinking; chunk.reasoning_content = block.thinking;
          }
          break;
        }
        case "content_block_delta": {
          const d = json.delta ?? {};
          if (d.type === "text_delta" && typeof d.text === "string") { event.channel = "content"; event.text = d.text; chunk.delta = d.text; }
          else if (d.type === "thinking_delta" && typeof d.thinking === "string") { event.channel = "reasoning"; event.text = d.thinking; chunk.reasoning_content = d.thinking; }
          else if (d.type === "input_json_delta" && tools.has(json.index) && typeof d.partial_json === "string" && d.partial_json !== "") {
            const call = tools.get(json.index)!;
            call.arguments = true;
            chunk.tool_calls = [{ index: call.index, function: { arguments: d.partial_json } }];
          }
          break;
        }
        case "content_block_stop": {
          // A tool called with no arguments streams none: its input from the block's start stands.
          const call = tools.get(json.index);
          if (call && !call.arguments) chunk.tool_calls = [{ index: call.index, function: { arguments: JSON.stringify(call.input ?? {}) } }];
          break;
        }
        case "message_delta":
          usage = withKeys(usage, json.usage ?? {});
          chunk.usage = usageOf(usage);
          if (typeof json.delta?.stop_reason === "string") chunk.finish_reason = chatFinishOf(json.delta.stop_reason);
          break;
        case "message_stop":
          stopped = true;
          break;
      }
      facts.events.push(event);
      yield chunk;
      if (stopped) return;
    }
    throw new SluiceError("UPSTREAM_FAILED", "the upstream's stream ended without message_stop: the answer is incomplete");
  };
}

/** A whole message as the events that stream it, for an upstream that ignored `stream`. */
async function* wholeMessage(message: Json, facts: AnthropicFacts): AsyncGenerator<StreamChunk> {
  const emit = (json: Json, chunk: StreamChunk, channel?: TextChannel, text?: string): StreamChunk => {
    facts.events.push({ type: json.type, data: JSON.stringify(json), json, ...(channel ? { channel, text: text! } : {}) });
    return chunk;
  };
  const { content, stop_reason, stop_sequence, usage, ...start } = message;
  yield emit({ type: "message_start", message: withKeys(start, { content: [], stop_reason: null, stop_sequence: null, usage }) }, { usage: usageOf(usage), ...(typeof message.id === "string" ? { provider_request_id: message.id } : {}) });
  let tool = 0;
  for (const [index, block] of (content as Json[]).entries()) {
    facts.blocks.set(index, String(block.type));
    if (block.type === "text") {
      yield emit({ type: "content_block_start", index, content_block: withKeys(block, { text: "" }) }, {});
      yield emit({ type: "content_block_delta", index, delta: { type: "text_delta", text: block.text } }, { delta: String(block.text ?? "") }, "content", String(block.text ?? ""));
    } else if (block.type === "thinking") {
      yield emit({ type: "content_block_start", index, content_block: { type: "thinking", thinking: "", signature: "" } }, {});
      yield emit({ type: "content_block_delta", index, delta: { type: "thinking_delta", thinking: block.thinking } }, { reasoning_content: String(block.thinking ?? "") }, "reasoning", String(block.thinking ?? ""));
      yield emit({ type: "content_block_delta", index, delta: { type: "signature_delta", signature: block.signature } }, {});
    } else if (block.type === "tool_use") {
      const delta: ToolCallDelta = { index: tool++, id: String(block.id ?? ""), function: { name: String(block.name ?? ""), arguments: JSON.stringify(block.input ?? {}) } };
      yield emit({ type: "content_block_start", index, content_block: withKeys(block, { input: {} }) }, { tool_calls: [delta] });
      yield emit({ type: "content_block_delta", index, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input ?? {}) } }, {});
    } else {
      yield emit({ type: "content_block_start", index, content_block: block }, {});
    }
    yield emit({ type: "content_block_stop", index }, {});
  }
  yield emit({ type: "message_delta", delta: { stop_reason, stop_sequence: stop_sequence ?? null }, usage: { output_tokens: usage?.output_tokens ?? 0 } }, typeof stop_reason === "string" ? { finish_reason: chatFinishOf(stop_reason), usage: usageOf(usage) } : { usage: usageOf(usage) });
  yield emit({ type: "message_stop" }, {});
}
