/**
 * A Gemini generateContent body in, the hooks' view of it (model.chat.before's payload), and
 * back. The view: the system instruction as the first system message, then each content in
 * order (`model` as assistant) with its parts as content parts (a text part as a text part,
 * every other part typed by its kind), its functionCall parts as tool_calls, and each
 * functionResponse part as a tool message just before the content that carries it. Function
 * declarations are the view's tools, then the tools the upstream runs (googleSearch, …) by name; `generationConfig`'s temperature, topP, maxOutputTokens,
 * stopSequences, seed, presencePenalty and frequencyPenalty its params. Back: only what a hook changed is written, in its place.
 */
import { SluiceError } from "../errors/sluice-error.js";
import type { ChatMessage, ChatRequest, ContentPart } from "../boundary/chat.js";
import { canonicalJson } from "../pipeline/canonical-json.js";
import { withKeys } from "../objects/with-keys.js";
import { fromDataUrl, toDataUrl } from "./data-url.js";

type Json = Record<string, any>;

export interface GeminiBody {
  contents: { role?: string; parts: Json[]; [field: string]: unknown }[];
  systemInstruction?: { parts?: Json[]; [field: string]: unknown } | string;
  tools?: Json[];
  generationConfig?: Json;
  [field: string]: unknown;
}

export type GeminiOrigin = { kind: "system" } | { kind: "content"; index: number } | { kind: "function_response"; index: number; part: number };
export interface GeminiView { request: ChatRequest; origins: GeminiOrigin[] }

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function invalid(message: string, param: string): SluiceError {
  return new SluiceError("REQUEST_INVALID", message, { param });
}

export function readGeminiBody(body: unknown): GeminiBody {
  if (!isObject(body)) throw invalid("the request body must be a JSON object", "body");
  if (!Array.isArray(body.contents) || body.contents.length === 0) throw invalid("contents must be a non-empty array", "contents");
  body.contents.forEach((c: unknown, i: number) => {
    if (!isObject(c) || !Array.isArray(c.parts) || !c.parts.every(isObject)) throw invalid(`contents[${i}].parts must be an array of parts (objects)`, `contents[${i}].parts`);
    if (c.role != null && c.role !== "user" && c.role !== "model" && c.role !== "function") throw invalid(`contents[${i}].role must be user or model`, `contents[${i}].role`);
  });
  if (body.systemInstruction != null && typeof body.systemInstruction !== "string" && !(isObject(body.systemInstruction) && (body.systemInstruction.parts == null || Array.isArray(body.systemInstruction.parts)))) {
    throw invalid("systemInstruction must be a content with parts", "systemInstruction");
  }
  if (body.tools != null && !(Array.isArray(body.tools) && body.tools.every(isObject))) throw invalid("tools must be an array of tools (objects)", "tools");
  if (body.generationConfig != null && !isObject(body.generationConfig)) throw invalid("generationConfig must be an object", "generationConfig");
  // The hooks see, judge and redact one answer: a second candidate would reach the client unseen.
  const count = body.generationConfig?.candidateCount;
  if (count != null && count !== 1) throw invalid("generationConfig.candidateCount must be 1: hooks see and govern exactly one candidate", "generationConfig.candidateCount");
  return body as GeminiBody;
}

/** The fields that hold a Gemini part's data: one of them names the part's kind for the hooks. */
const PART_KINDS = ["inlineData", "fileData", "functionCall", "functionResponse", "executableCode", "codeExecutionResult"] as const;

/**
 * A Gemini part as a content part: text as a text part (its other fields kept for the way
 * back), an image (inline or a file) as the `image_url` part chat completions show, any
 * other part whole, typed by its kind (`inlineData`, `functionCall`, `thought`, …), so a
 * hook reads an image as on chat completions and tells a call from a file.
 */
function partOf(p: Json): ContentPart {
  if (typeof p.text === "string" && p.thought !== true) { const { text, ...rest } = p; return withKeys(rest, { type: "text" as const, text }); }
  const url = imageUrlOf(p);
  if (url !== undefined) return { type: "image_url", image_url: { url }, part: p } as ContentPart;
  const kind = p.thought === true ? "thought" : PART_KINDS.find((k) => p[k] !== undefined) ?? "part";
  return { type: kind, part: p };
}

/** An image part's URL as chat completions show an image: a data URL for inline data, else the file's URI. */
function imageUrlOf(p: Json): string | undefined {
  const inline = p.inlineData;
  if (isObject(inline) && typeof inline.mimeType === "string" && inline.mimeType.startsWith("image/") && typeof inline.data === "string") return toDataUrl(inline.mimeType, inline.data);
  const file = p.fileData;
  if (isObject(file) && typeof file.mimeType === "string" && file.mimeType.startsWith("image/") && typeof file.fileUri === "string") return file.fileUri;
  return undefined;
}

/** An image_url part as the Gemini part it came from, or (its URL changed, or a hook added it) a part of that URL. */
function imagePartBack(p: Json): Json {
  const url = String(p.image_url.url);
  const was = isObject(p.part) ? p.part : undefined;
  if (was && imageUrlOf(was) === url) return was;
  const data = fromDataUrl(url);
  const { inlineData: _inline, fileData: _file, ...rest } = was ?? {};
  return withKeys(rest, data ? { inlineData: { mimeType: data.mediaType, data: data.data } } : { fileData: { fileUri: url } });
}

function partBack(p: unknown): Json {
  if (!isObject(p)) return { text: String(p ?? "") };
  if (p.type === "image_url" && isObject(p.image_url) && typeof p.image_url.url === "string") return imagePartBack(p);
  if (p.type !== "text" && isObject(p.part)) return p.part;
  const { type: _type, text, ...rest } = p;
  return withKeys(rest, { text: typeof text === "string" ? text : "" });
}

function partsBack(content: unknown): Json[] {
  if (typeof content === "string") return [{ text: content }];
  if (Array.isArray(content)) return content.map(partBack);
  return [];
}

/** generationConfig's fields that have a chat param of the same meaning, under the name hooks know from chat completions. */
const PARAMS: readonly (readonly [string, string])[] = [
  ["temperature", "temperature"], ["topP", "top_p"], ["maxOutputTokens", "max_tokens"], ["stopSequences", "stop"],
  ["seed", "seed"], ["presencePenalty", "presence_penalty"], ["frequencyPenalty", "frequency_penalty"],
];

export function toGeminiView(body: GeminiBody, model: string): GeminiView {
  const messages: ChatMessage[] = [];
  const origins: GeminiOrigin[] = [];
  const system = typeof body.systemInstruction === "string" ? [{ text: body.systemInstruction }] : body.systemInstruction?.parts;
  if (system && system.length > 0) {
    messages.push({ role: "system", content: system.map(partOf) });
    origins.push({ kind: "system" });
  }
  // Gemini pairs a response without id with the call of its name in order: the k-th call
  // and the k-th response of a name get the same id, `<name>_<k>`.
  const callsOf = new Map<string, number>();
  const responsesOf = new Map<string, number>();
  const idOf = (fn: Json, seen: Map<string, number>): string => {
    const name = String(fn.name ?? "");
    const k = seen.get(name) ?? 0;
    seen.set(name, k + 1);
    return typeof fn.id === "string" && fn.id !== "" ? fn.id : `${name}_${k}`;
  };
  body.contents.forEach((c, index) => {
    c.parts.forEach((p, part) => {
      if (!isObject(p.functionResponse)) return;
      const r = p.functionResponse;
      messages.push({ role: "tool", tool_call_id: idOf(r, responsesOf), content: JSON.stringify(r.response ?? {}) });
      origins.push({ kind: "function_response", index, part });
    });
    const calls = c.parts.filter((p) => isObject(p.functionCall)).map((p) => ({ id: idOf(p.functionCall, callsOf), type: "function" as const, function: { name: String(p.functionCall.name ?? ""), arguments: JSON.stringify(p.functionCall.args ?? {}) } }));
    messages.push({ role: c.role === "model" ? "assistant" : "user", content: c.parts.map(partOf), ...(calls.length > 0 ? { tool_calls: calls } : {}) });
    origins.push({ kind: "content", index });
  });
  const functions = (body.tools ?? []).flatMap((t) => (Array.isArray(t.functionDeclarations) ? t.functionDeclarations : [])).filter((d: Json) => typeof d?.name === "string").map((d: Json) => ({
    name: d.name as string,
    ...(typeof d.description === "string" ? { description: d.description } : {}),
    parameters: (isObject(d.parametersJsonSchema) ? d.parametersJsonSchema : isObject(d.parameters) ? d.parameters : { type: "object", properties: {} }) as Record<string, unknown>,
  }));
  // A tool the upstream runs itself (googleSearch, codeExecution, urlContext, …) is listed
  // too, by its field, so a policy on what the model may use sees it (tools are read-only to hooks).
  const builtIn = (body.tools ?? []).flatMap((t) => Object.keys(t).filter((k) => k !== "functionDeclarations")).map((name) => ({
    name, description: "a Gemini-defined tool the upstream runs", parameters: { type: "object", properties: {} },
  }));
  const tools = [...functions, ...builtIn];
  const params: Record<string, unknown> = {};
  const config = body.generationConfig ?? {};
  for (const [wire, key] of PARAMS) if (config[wire] != null) params[key] = config[wire];
  return {
    request: { model, messages, ...(tools.length > 0 ? { tools } : {}), ...(Object.keys(params).length > 0 ? { params } : {}) },
    origins,
  };
}

const same = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);

/** The upstream body: the client's, with each change a hook made written where its view came from. */
export function toGeminiUpstream(body: GeminiBody, view: GeminiView, effective: ChatRequest): Json {
  const out: Json = withKeys(body, {});
  let contents = body.contents;
  const copy = () => { if (contents === body.contents) contents = contents.slice(); return contents; };
  const seen = view.request.messages;
  for (const pass of ["content", "function_response"] as const) {
    effective.messages.forEach((now, k) => {
      const origin = view.origins[k];
      if (!origin || (origin.kind === "function_response" ? "function_response" : "content") !== pass) return;
      if (same(now.content, seen[k]?.content)) return;
      if (origin.kind === "system") out.systemInstruction = withKeys((typeof body.systemInstruction === "object" ? body.systemInstruction : undefined) ?? {}, { parts: partsBack(now.content) });
      else if (origin.kind === "content") copy()[origin.index] = withKeys(contents[origin.index]!, { parts: partsBack(now.content) });
      else {
        const c = contents[origin.index]!;
        const parts = c.parts.slice();
        const text = typeof now.content === "string" ? now.content : partsBack(now.content).map((p) => p.text ?? "").join("");
        let response: unknown;
        try { response = JSON.parse(text); } catch { response = { output: text }; }
        const part = parts[origin.part];
        parts[origin.part] = withKeys(part ?? {}, { functionResponse: withKeys(part!.functionResponse ?? {}, { response: isObject(response) ? response : { output: response } }) });
        copy()[origin.index] = withKeys(c, { parts });
      }
    });
  }
  const extra = effective.messages.slice(view.origins.length).map((m) => ({ role: m.role === "assistant" ? "model" : "user", parts: partsBack(m.content) }));
  if (extra.length > 0) copy().push(...extra);
  if (contents !== body.contents) out.contents = contents;
  const was = (view.request.params ?? {}) as Json;
  const now = (effective.params ?? {}) as Json;
  let config = body.generationConfig;
  for (const [wire, key] of PARAMS) {
    if (same(now[key], was[key])) continue;
    config = { ...(config ?? {}) };
    if (now[key] === undefined) delete config[wire];
    else config[wire] = key === "stop" && typeof now[key] === "string" ? [now[key]] : now[key];
  }
  if (config !== body.generationConfig) out.generationConfig = config;
  return out;
}
