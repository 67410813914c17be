/**
 * The effective answer as an Anthropic message: the upstream's own message with only the
 * text the hooks changed written back (the answer into its first text block, reasoning into
 * its first thinking block, the other blocks of that kind emptied of text), every other
 * block (tool_use, redacted_thinking, signatures, server tools) as it came. A short-circuit
 * answer has no upstream message: it is built from the answer.
 */
import { randomUUID } from "node:crypto";
import type { ChatResponse } from "../boundary/chat.js";
import { answerText, usageView } from "../boundary/chat.js";
import { fromMessage } from "./anthropic-upstream.js";
import { withKeys } from "../objects/with-keys.js";

type Json = Record<string, any>;

/** A chat finish reason as Anthropic's stop_reason (a short-circuit may give either). */
export function stopReasonOf(finish: string): string {
  if (finish === "stop") return "end_turn";
  if (finish === "tool_calls") return "tool_use";
  if (finish === "length") return "max_tokens";
  if (finish === "content_filter") return "refusal";
  return finish;
}

export function ownMessageId(): string {
  return `msg_${randomUUID().replaceAll("-", "")}`;
}

/** Blocks of `type` with their text field set to `text` in the first and "" in the others (kept: a thinking block's signature is the upstream's). */
function rewrite(blocks: Json[], type: "text" | "thinking", text: string): Json[] {
  const field = type === "text" ? "text" : "thinking";
  let first = true;
  const out: Json[] = [];
  for (const b of blocks) {
    if (b?.type !== type) { out.push(b); continue; }
    if (first) out.push(withKeys(b, { [field]: text }));
    else if (type === "thinking") out.push(withKeys(b, { thinking: "" }));
    first = false;
  }
  if (first && text !== "") out.unshift({ type, [field]: text });
  return out;
}

export function toMessage(upstream: Json | undefined, model: string, out: ChatResponse): Json {
  if (upstream) {
    const real = fromMessage(upstream);
    let content = upstream.content as Json[];
    if (answerText(out.content) !== answerText(real.content)) content = rewrite(content, "text", answerText(out.content));
    if ((out.reasoning_content ?? "") !== (real.reasoning_content ?? "")) content = rewrite(content, "thinking", out.reasoning_content ?? "");
    return content === upstream.content ? upstream : withKeys(upstream, { content });
  }
  const usage = usageView(out.usage);
  const content: Json[] = [];
  if (typeof out.reasoning_content === "string" && out.reasoning_content !== "") content.push({ type: "thinking", thinking: out.reasoning_content, signature: "" });
  if (answerText(out.content) !== "") content.push({ type: "text", text: answerText(out.content) });
  for (const c of out.tool_calls) content.push({ type: "tool_use", id: c.id, name: c.function.name, input: JSON.parse(c.function.arguments || "{}") });
  return {
    id: ownMessageId(), type: "message", role: "assistant", model, content,
    stop_reason: stopReasonOf(out.finish_reason), stop_sequence: null,
    usage: { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens },
  };
}
