/**
 * The AI SDK's prompt (LanguageModelV4Prompt) as the host's chat messages, and back.
 * A prompt message can become several chat messages (one per tool result), so each chat
 * message remembers the prompt message it came from; on the way back, a prompt message
 * whose chat messages no hook changed is handed to the model exactly as it was (provider
 * options, files and all), and only what a hook changed is rebuilt.
 */
import type { LanguageModelV4Message, LanguageModelV4Prompt, LanguageModelV4ToolResultOutput } from "@ai-sdk/provider";
import type { ChatMessage, ChatRequest } from "../../index.js";

type UserPart = Extract<LanguageModelV4Message, { role: "user" }>["content"][number];
type AssistantPart = Extract<LanguageModelV4Message, { role: "assistant" }>["content"][number];
type ToolPart = Extract<LanguageModelV4Message, { role: "tool" }>["content"][number];

/** A content part of a chat message (host/boundary/chat.ts accepts these next to plain strings). */
type ContentPart = { type: string; [key: string]: unknown };

export interface MappedPrompt {
  messages: ChatMessage[];
  /** For each chat message, the index of the prompt message it came from. */
  origins: number[];
}

function outputText(output: LanguageModelV4ToolResultOutput): string {
  switch (output.type) {
    case "text": case "error-text": return output.value;
    case "json": case "error-json": return JSON.stringify(output.value);
    case "execution-denied": return output.reason ?? "the tool call was denied";
    case "content": return output.value.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
  }
}

function dataUrl(data: unknown, mediaType: string): string {
  if (data instanceof URL) return data.href;
  if (typeof data === "string") return /^(https?|data):/.test(data) ? data : `data:${mediaType};base64,${data}`;
  if (data instanceof Uint8Array) return `data:${mediaType};base64,${Buffer.from(data).toString("base64")}`;
  return `data:${mediaType};base64,`;
}

function userPart(part: UserPart): ContentPart {
  if (part.type === "text") return { type: "text", text: part.text };
  const url = dataUrl(part.data, part.mediaType);
  if (part.mediaType.startsWith("image/")) return { type: "image_url", image_url: { url } };
  if (part.mediaType.startsWith("audio/")) return { type: "input_audio", input_audio: { data: url.replace(/^data:[^,]*,/, ""), format: part.mediaType.slice("audio/".length) } };
  return { type: "file", file: { file_data: url, ...(part.filename ? { filename: part.filename } : {}) } };
}

/** One text part is a plain string, as providers send it; anything else stays parts. */
function userContent(parts: readonly UserPart[]): ChatMessage["content"] {
  if (parts.length === 1 && parts[0]!.type === "text") return parts[0]!.text;
  return parts.map(userPart) as unknown as ChatMessage["content"];
}

function textOf(parts: readonly { type: string; text?: string }[], type: "text" | "reasoning"): string {
  return parts.flatMap((p) => (p.type === type ? [p.text ?? ""] : [])).join("");
}

export function messagesOf(prompt: LanguageModelV4Prompt): MappedPrompt {
  const messages: ChatMessage[] = [];
  const origins: number[] = [];
  const push = (m: ChatMessage, i: number): void => { messages.push(m); origins.push(i); };
  prompt.forEach((m, i) => {
    switch (m.role) {
      case "system": push({ role: "system", content: m.content }, i); break;
      case "user": push({ role: "user", content: userContent(m.content) }, i); break;
      case "assistant": {
        const calls = m.content.flatMap((p) => (p.type === "tool-call" && !p.providerExecuted ? [{ id: p.toolCallId, type: "function" as const, function: { name: p.toolName, arguments: JSON.stringify(p.input ?? {}) } }] : []));
        const text = textOf(m.content, "text");
        const reasoning = textOf(m.content, "reasoning");
        push({ role: "assistant", content: text === "" && calls.length > 0 ? null : text, ...(calls.length ? { tool_calls: calls } : {}), ...(reasoning ? { reasoning_content: reasoning } : {}) } as ChatMessage, i);
        break;
      }
      case "tool":
        for (const p of m.content) if (p.type === "tool-result") push({ role: "tool", tool_call_id: p.toolCallId, content: outputText(p.output) }, i);
        break;
    }
  });
  return { messages, origins };
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);
const str = (content: unknown): string => (typeof content === "string" ? content : Array.isArray(content) ? content.flatMap((p) => (p?.type === "text" ? [String(p.text)] : [])).join("") : "");

function userPartsOf(content: unknown, original: readonly UserPart[]): UserPart[] {
  if (!Array.isArray(content)) return [{ type: "text", text: str(content) }];
  // A part left as it was keeps its original (file data, provider options); a changed text part is rebuilt.
  return (content as ContentPart[]).flatMap((p, j): UserPart[] => {
    const before = original[j];
    if (before && same(userPart(before), p)) return [before];
    return p.type === "text" ? [{ type: "text", text: String(p.text) }] : before ? [before] : [];
  });
}

/** One text part in place of the first (other text parts dropped); the rest as it was. */
function withText<P extends { type: string }>(parts: readonly P[], type: "text" | "reasoning", text: string, make: (text: string) => P): P[] {
  const at = parts.findIndex((p) => p.type === type);
  const kept = parts.filter((p) => p.type !== type);
  if (text === "") return kept;
  const insert = at < 0 ? (type === "reasoning" ? 0 : kept.length) : parts.slice(0, at).filter((p) => p.type !== type).length;
  return [...kept.slice(0, insert), make(text), ...kept.slice(insert)];
}

function rebuilt(original: LanguageModelV4Message, changed: ChatMessage[], before: ChatMessage[]): LanguageModelV4Message {
  switch (original.role) {
    case "system": return { ...original, content: str(changed[0]?.content) };
    case "user": return { ...original, content: userPartsOf(changed[0]?.content, original.content) };
    case "assistant": {
      const m = changed[0]!;
      let content: AssistantPart[] = withText(original.content, "text", str(m.content), (text) => ({ type: "text", text }));
      if (m.reasoning_content !== undefined) content = withText(content, "reasoning", m.reasoning_content ?? "", (text) => ({ type: "reasoning", text }));
      return { ...original, content };
    }
    case "tool": {
      let k = 0;
      const content = original.content.map((p): ToolPart => {
        if (p.type !== "tool-result") return p;
        const now = changed[k];
        const was = before[k++];
        return now && was && !same(now.content, was.content) ? { ...p, output: { type: "text", value: str(now.content) } } : p;
      });
      return { ...original, content };
    }
  }
}

/** A message a hook appended: built from the chat shape alone. */
function appended(m: ChatMessage): LanguageModelV4Message {
  switch (m.role) {
    case "system": return { role: "system", content: str(m.content) };
    case "user": return { role: "user", content: userPartsOf(m.content, []) };
    case "assistant": return { role: "assistant", content: [{ type: "text", text: str(m.content) }] };
    case "tool": return { role: "tool", content: [{ type: "tool-result", toolCallId: m.tool_call_id ?? "", toolName: m.name ?? "", output: { type: "text", value: str(m.content) } }] };
    default: return { role: "user", content: userPartsOf(m.content, []) };
  }
}

/** The prompt for the model after the hooks: `mapped` is what they were shown, `hooked` what they left. */
export function promptOf(prompt: LanguageModelV4Prompt, mapped: MappedPrompt, hooked: ChatRequest["messages"]): LanguageModelV4Prompt {
  const out: LanguageModelV4Message[] = [];
  prompt.forEach((original, i) => {
    const at = mapped.origins.flatMap((o, k) => (o === i ? [k] : []));
    const before = at.map((k) => mapped.messages[k]!);
    const now = at.map((k) => hooked[k]!).filter((m) => m !== undefined);
    out.push(same(before, now) ? original : rebuilt(original, now, before));
  });
  for (const m of hooked.slice(mapped.messages.length)) out.push(appended(m));
  return out;
}
