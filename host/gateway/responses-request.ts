/**
 * A Responses API body in, as the chat body the rest of the gateway already serves: the
 * same hook payloads (model.chat.before sees messages, tools and params), the same upstream
 * call (`/chat/completions`). Instructions become a system message, input items become
 * messages (function calls join the assistant turn before them, function call outputs
 * become tool messages), function tools are unwrapped, `max_output_tokens`, `text.format`,
 * `reasoning.effort` and `tool_choice` take their chat names. What would change the answer
 * and chat completions cannot say is refused with the parameter it is about:
 * `previous_response_id` and `item_reference` (the gateway stores no responses; clients send
 * the whole conversation, e.g. the AI SDK or Codex with `store: false`).
 *
 * A tool the chat upstream cannot run (a hosted tool such as `web_search`, `file_search`,
 * `code_interpreter`, a `namespace` or `custom` tool: anything but a function) is dropped from
 * the upstream request, never a reason to refuse it: the request is what Codex sends by
 * default. Each dropped tool is named in the result (the route records it with the
 * operation and shows it to the hooks among the read-only tools), and so is each earlier
 * call of such a tool in the input (`web_search_call`, …), which a chat upstream has no
 * message for. Reasoning input items (with their `encrypted_content`) are dropped too (a
 * chat upstream has no field for them), and so are the other Responses fields (`store`,
 * `metadata`, `include`, `truncation`, `prompt_cache_key`, …).
 */
import { SluiceError } from "../errors/sluice-error.js";
import { readChatBody } from "./chat-request.js";
import type { WireChatBody, WireContentPart, WireMessage, WireTool } from "./wire.js";

type Json = Record<string, any>;

function invalid(message: string, param: string): SluiceError {
  return new SluiceError("REQUEST_INVALID", message, { param });
}

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const ROLES = new Set(["system", "developer", "user", "assistant"]);

/** What the translation left out of the upstream request, and where it was. */
export interface DroppedItem { param: string; type: string; name?: string }

/** One content part of a Responses message as a chat content part. */
function partOf(p: unknown, where: string): WireContentPart {
  if (!isObject(p)) throw invalid(`${where} must be a content part (an object)`, where);
  switch (p.type) {
    case "input_text":
    case "output_text":
    case "text":
      if (typeof p.text !== "string") throw invalid(`${where}.text must be a string`, `${where}.text`);
      return { type: "text", text: p.text };
    case "refusal":
      return { type: "text", text: typeof p.refusal === "string" ? p.refusal : "" };
    case "input_image":
      if (typeof p.image_url !== "string") throw invalid(`${where}: only images given by image_url can be sent to a chat upstream`, `${where}.image_url`);
      return { type: "image_url", image_url: { url: p.image_url, ...(typeof p.detail === "string" ? { detail: p.detail } : {}) } };
    case "input_file":
      return { type: "file", file: fileOf(p) };
    case "input_audio":
      return { type: "input_audio", input_audio: p.input_audio };
    default:
      throw invalid(`${where}.type ${JSON.stringify(p.type)} is not a content part the gateway can pass on`, `${where}.type`);
  }
}

/** A message's content: a string stays a string; parts that are all text collapse to one, so hooks and upstreams see what a chat client would send. */
function contentOf(content: unknown, where: string): string | WireContentPart[] {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) throw invalid(`${where} must be a string or an array of content parts`, where);
  const parts = content.map((p, i) => partOf(p, `${where}[${i}]`));
  return parts.every((p) => p.type === "text") ? parts.map((p) => p.text).join("") : parts;
}

function messagesOf(input: unknown, dropped: DroppedItem[]): WireMessage[] {
  if (typeof input === "string") return [{ role: "user", content: input }];
  if (!Array.isArray(input) || input.length === 0) throw invalid("input must be a string or a non-empty array of input items", "input");
  const out: WireMessage[] = [];
  input.forEach((item, i) => {
    const where = `input[${i}]`;
    if (!isObject(item)) throw invalid(`${where} must be an input item (an object)`, where);
    const type = item.type ?? "message";
    if (type === "message") {
      if (!ROLES.has(item.role)) throw invalid(`${where}.role must be one of ${[...ROLES].join(", ")}`, `${where}.role`);
      out.push({ role: item.role, content: contentOf(item.content, `${where}.content`) });
    } else if (type === "function_call") {
      if (typeof item.call_id !== "string" || typeof item.name !== "string" || typeof item.arguments !== "string") throw invalid(`${where} needs call_id, name and arguments (strings)`, where);
      const call = { id: item.call_id, type: "function" as const, function: { name: item.name, arguments: item.arguments } };
      // Chat completions put a turn's calls on one assistant message.
      const prev = out.at(-1);
      if (prev?.role === "assistant" && (prev.tool_calls || typeof prev.content === "string" || prev.content == null)) (prev.tool_calls ??= []).push(call);
      else out.push({ role: "assistant", content: null, tool_calls: [call] });
    } else if (type === "function_call_output") {
      if (typeof item.call_id !== "string") throw invalid(`${where}.call_id must be a string`, `${where}.call_id`);
      const output = typeof item.output === "string" ? item.output : contentOf(item.output, `${where}.output`);
      out.push({ role: "tool", tool_call_id: item.call_id, content: typeof output === "string" ? output : output.filter((p) => p.type === "text").map((p) => p.text).join("") });
    } else if (type === "reasoning") {
      // A chat upstream has no field for earlier reasoning.
    } else if (typeof type === "string" && /_call(?:_output)?$/.test(type)) {
      // An earlier call of a tool the upstream does not run (web_search_call, custom_tool_call, …).
      dropped.push({ param: where, type, ...(typeof item.name === "string" ? { name: item.name } : {}) });
    } else if (type === "item_reference") {
      throw invalid(`${where} is an item_reference: the gateway stores no responses; send the items themselves (with the AI SDK: providerOptions.openai.store = false)`, where);
    } else {
      throw invalid(`${where}.type ${JSON.stringify(type)} is not an input item a chat upstream can take`, `${where}.type`);
    }
  });
  return out;
}

function toolsOf(tools: unknown, dropped: DroppedItem[]): WireTool[] | undefined {
  if (tools == null) return undefined;
  if (!Array.isArray(tools)) throw invalid("tools must be an array", "tools");
  return tools.flatMap((t, i): WireTool[] => {
    if (!isObject(t) || typeof t.type !== "string") throw invalid(`tools[${i}] must be a tool (an object with a type)`, `tools[${i}]`);
    if (t.type !== "function") {
      dropped.push({ param: `tools[${i}]`, type: t.type, ...(typeof t.name === "string" ? { name: t.name } : {}) });
      return [];
    }
    if (typeof t.name !== "string") throw invalid(`tools[${i}] is a function tool without a name`, `tools[${i}].name`);
    return [{
      type: "function",
      function: { name: t.name, ...(typeof t.description === "string" ? { description: t.description } : {}), parameters: isObject(t.parameters) ? t.parameters : { type: "object", properties: {} }, ...(typeof t.strict === "boolean" ? { strict: t.strict } : {}) },
    }];
  });
}

function toolChoiceOf(choice: unknown, dropped: DroppedItem[]): unknown {
  if (choice == null || typeof choice === "string") return choice ?? undefined;
  if (isObject(choice) && choice.type === "function" && typeof choice.name === "string") return { type: "function", function: { name: choice.name } };
  // A choice of a tool that was dropped (a hosted tool): the upstream chooses among what it has.
  if (isObject(choice) && typeof choice.type === "string" && dropped.some((d) => d.type === choice.type)) return "auto";
  throw invalid("tool_choice must be auto, none, required or a function", "tool_choice");
}

function responseFormatOf(text: unknown): unknown {
  const f = isObject(text) ? text.format : undefined;
  if (!isObject(f) || f.type === "text") return undefined;
  if (f.type === "json_object") return { type: "json_object" };
  if (f.type === "json_schema") return { type: "json_schema", json_schema: { name: f.name ?? "response", schema: f.schema, ...(typeof f.strict === "boolean" ? { strict: f.strict } : {}), ...(typeof f.description === "string" ? { description: f.description } : {}) } };
  throw invalid("text.format.type must be text, json_object or json_schema", "text.format.type");
}

/** The Responses body as the chat body it means; the chat reader then checks it as it checks any chat body. */
export function readResponsesBody(body: unknown): { chat: WireChatBody; stream: boolean; dropped: DroppedItem[] } {
  if (!isObject(body)) throw invalid("the request body must be a JSON object", "body");
  if (typeof body.model !== "string" || body.model === "") throw invalid("model must be a non-empty string", "model");
  if (body.previous_response_id != null) throw invalid("previous_response_id is not supported: the gateway stores no responses; send the whole conversation as input", "previous_response_id");
  if (body.stream != null && typeof body.stream !== "boolean") throw invalid("stream must be a boolean", "stream");
  if (body.instructions != null && typeof body.instructions !== "string") throw invalid("instructions must be a string", "instructions");
  const dropped: DroppedItem[] = [];
  const messages = messagesOf(body.input, dropped);
  if (typeof body.instructions === "string" && body.instructions !== "") messages.unshift({ role: "system", content: body.instructions });
  const chat: WireChatBody = { model: body.model, messages };
  const tools = toolsOf(body.tools, dropped);
  if (tools && tools.length > 0) chat.tools = tools;
  const toolChoice = toolChoiceOf(body.tool_choice, dropped);
  if (toolChoice !== undefined) chat.tool_choice = toolChoice;
  if (typeof body.parallel_tool_calls === "boolean") chat.parallel_tool_calls = body.parallel_tool_calls;
  if (body.temperature != null) chat.temperature = body.temperature;
  if (body.top_p != null) chat.top_p = body.top_p;
  if (body.max_output_tokens != null) chat.max_tokens = body.max_output_tokens;
  const format = responseFormatOf(body.text);
  if (format !== undefined) chat.response_format = format;
  if (isObject(body.reasoning) && typeof body.reasoning.effort === "string") chat.reasoning_effort = body.reasoning.effort;
  if (typeof body.user === "string") chat.user = body.user;
  if (typeof body.safety_identifier === "string") chat.user ??= body.safety_identifier;
  return { chat: readChatBody(chat), stream: body.stream === true, dropped };
}

/** A file part's fields, each only when the client gave it as a string. */
function fileOf(p: Record<string, unknown>): Record<string, string> {
  const file: Record<string, string> = {};
  for (const key of ["file_data", "file_id", "filename"] as const) if (typeof p[key] === "string") file[key] = p[key];
  return file;
}
