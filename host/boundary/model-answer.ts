/**
 * What a service's model call must return, checked before anything reads it: an answer
 * (or a stream chunk) that is not an object, or whose known fields have the wrong type, is
 * MODEL_OUTPUT_INVALID naming the field, never a TypeError thrown out of the boundary.
 * Only the fields the host reads are checked; anything else a provider adds passes
 * through. Messages name paths and types, never the model's text.
 */
import { fail, OK, type Checked } from "../pipeline/result.js";
import type { ErrorData } from "../errors/sluice-error.js";

const kind = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function field(where: string, value: unknown, ok: (v: unknown) => boolean, expected: string): Checked {
  return value === undefined || ok(value) ? OK : fail("MODEL_OUTPUT_INVALID", `${where} must be ${expected}, got ${kind(value)}`, { field: where });
}

const COUNT_FIELDS = ["input_tokens", "output_tokens", "prompt_tokens", "completion_tokens", "total_tokens", "cached_tokens", "reasoning_tokens"];
const DETAILS = ["prompt_tokens_details", "completion_tokens_details", "input_tokens_details", "output_tokens_details"];
const isCount = (v: unknown): boolean => typeof v === "number" && Number.isFinite(v) && v >= 0;

/** Usage in either naming (input/output or prompt/completion, with their details); counts the host reads must be non-negative numbers, the rest passes through. */
function usageProblem(where: string, usage: unknown): Checked {
  if (usage === undefined || usage === null) return OK;
  if (!isObject(usage)) return fail("MODEL_OUTPUT_INVALID", `${where} must be an object, got ${kind(usage)}`, { field: where });
  for (const key of COUNT_FIELDS) {
    // Providers send null for a count they do not report.
    const c = usage[key] === null ? OK : field(`${where}.${key}`, usage[key], isCount, "a non-negative number");
    if (!c.ok) return c;
  }
  for (const key of DETAILS) {
    const details = usage[key];
    if (details === undefined || details === null) continue;
    if (!isObject(details)) return fail("MODEL_OUTPUT_INVALID", `${where}.${key} must be an object, got ${kind(details)}`, { field: `${where}.${key}` });
    for (const count of ["cached_tokens", "reasoning_tokens"]) {
      const c = details[count] === null ? OK : field(`${where}.${key}.${count}`, details[count], isCount, "a non-negative number");
      if (!c.ok) return c;
    }
  }
  return OK;
}

/** Content: text, nothing, or a list of parts, each an object with a string `type` (what a part of a known type holds is the point schema's business). */
function contentProblem(where: string, content: unknown): Checked {
  if (content === undefined || content === null || typeof content === "string") return OK;
  if (!Array.isArray(content)) return fail("MODEL_OUTPUT_INVALID", `${where} must be a string, null or an array of content parts, got ${kind(content)}`, { field: where });
  for (const [i, p] of content.entries()) {
    if (!isObject(p) || typeof p.type !== "string") return fail("MODEL_OUTPUT_INVALID", `${where}[${i}] must be a content part (an object with a string type), got ${kind(p)}`, { field: `${where}[${i}]` });
  }
  return OK;
}

const isText = (v: unknown): boolean => typeof v === "string" || v === null;

/** The answer of a (non-streamed) chat call. */
export function answerProblem(answer: unknown): Checked {
  if (!isObject(answer)) return fail("MODEL_OUTPUT_INVALID", `the model's answer must be an object (content, tool_calls, finish_reason, usage), got ${kind(answer)}`, { field: "answer" });
  const checks = [
    contentProblem("content", answer.content),
    field("refusal", answer.refusal, isText, "a string or null"),
    field("reasoning_content", answer.reasoning_content, isText, "a string or null"),
    field("finish_reason", answer.finish_reason, (v) => typeof v === "string" || v === null, "a string"),
    field("tool_calls", answer.tool_calls, Array.isArray, "an array"),
    usageProblem("usage", answer.usage),
  ];
  for (const c of checks) if (!c.ok) return c;
  for (const [i, call] of ((answer.tool_calls as unknown[] | undefined) ?? []).entries()) {
    const where = `tool_calls[${i}]`;
    if (!isObject(call)) return fail("MODEL_OUTPUT_INVALID", `${where} must be an object, got ${kind(call)}`, { field: where });
    if (!isObject(call.function)) return fail("MODEL_OUTPUT_INVALID", `${where}.function must be an object, got ${kind(call.function)}`, { field: `${where}.function` });
    for (const c of [
      field(`${where}.id`, call.id, (v) => typeof v === "string", "a string"),
      field(`${where}.function.name`, call.function.name, (v) => typeof v === "string", "a string"),
      field(`${where}.function.arguments`, call.function.arguments, (v) => typeof v === "string", "a string"),
    ]) if (!c.ok) return c;
  }
  return OK;
}

/** One streamed chunk, read into the host's fields whichever shape it came in. */
export interface ChunkFields {
  /** Answer text. */
  delta?: unknown;
  reasoning_content?: unknown;
  refusal?: unknown;
  tool_calls?: unknown;
  finish_reason?: unknown;
  usage?: unknown;
  provider_request_id?: unknown;
  /** How fields are named in messages: `chunk 3.delta` or `chunk 3.choices[0].delta.content`. */
  names: Record<"delta" | "reasoning_content" | "refusal" | "tool_calls" | "finish_reason", string>;
}

const absent = (v: unknown): unknown => (v === null ? undefined : v);

/**
 * The host's own chunk (`{ delta, reasoning_content?, refusal?, tool_calls?, finish_reason?, usage? }`)
 * or an OpenAI chat-completion chunk (`{ choices: [{ delta: { content, reasoning_content, refusal, tool_calls }, finish_reason }], usage }`,
 * `reasoning` taken as the reasoning text as local servers name it); null text is no text.
 */
export function readChunk(chunk: Record<string, unknown>, at: string): ChunkFields {
  if (Array.isArray(chunk.choices)) {
    const choice = chunk.choices[0];
    const d = isObject(choice) && isObject(choice.delta) ? choice.delta : {};
    const base = `${at}.choices[0].delta`;
    return {
      delta: absent(d.content), reasoning_content: absent(d.reasoning_content ?? d.reasoning), refusal: absent(d.refusal), tool_calls: absent(d.tool_calls),
      finish_reason: isObject(choice) ? absent(choice.finish_reason) : undefined, usage: chunk.usage,
      provider_request_id: typeof chunk.id === "string" ? chunk.id : undefined,
      names: { delta: `${base}.content`, reasoning_content: `${base}.reasoning_content`, refusal: `${base}.refusal`, tool_calls: `${base}.tool_calls`, finish_reason: `${at}.choices[0].finish_reason` },
    };
  }
  return {
    delta: chunk.delta, reasoning_content: absent(chunk.reasoning_content), refusal: absent(chunk.refusal), tool_calls: chunk.tool_calls,
    finish_reason: chunk.finish_reason, usage: chunk.usage, provider_request_id: chunk.provider_request_id,
    names: { delta: `${at}.delta`, reasoning_content: `${at}.reasoning_content`, refusal: `${at}.refusal`, tool_calls: `${at}.tool_calls`, finish_reason: `${at}.finish_reason` },
  };
}

/** One chunk of a streamed chat call, checked and read into the host's fields; `index` is its position in the stream. */
export function checkedChunk(chunk: unknown, index: number): { ok: true; fields: ChunkFields } | { ok: false; error: ErrorData } {
  const at = `chunk ${index}`;
  if (!isObject(chunk)) return fail("MODEL_OUTPUT_INVALID", `stream ${at} must be an object (delta, tool_calls, finish_reason, usage, or an OpenAI chunk with choices), got ${kind(chunk)}`, { field: at });
  if (Array.isArray(chunk.choices) && chunk.choices.length > 0 && !isObject(chunk.choices[0])) {
    return fail("MODEL_OUTPUT_INVALID", `${at}.choices[0] must be an object, got ${kind(chunk.choices[0])}`, { field: `${at}.choices[0]` });
  }
  const c = readChunk(chunk, at);
  const checks = [
    field(c.names.delta, c.delta, (v) => typeof v === "string", "a string"),
    field(c.names.reasoning_content, c.reasoning_content, (v) => typeof v === "string", "a string"),
    field(c.names.refusal, c.refusal, (v) => typeof v === "string", "a string"),
    field(c.names.finish_reason, c.finish_reason, (v) => typeof v === "string" || v === null, "a string"),
    field(c.names.tool_calls, c.tool_calls, Array.isArray, "an array"),
    usageProblem(`${at}.usage`, c.usage),
  ];
  for (const r of checks) if (!r.ok) return r;
  for (const [i, d] of ((c.tool_calls as unknown[] | undefined) ?? []).entries()) {
    const where = `${c.names.tool_calls}[${i}]`;
    if (!isObject(d)) return fail("MODEL_OUTPUT_INVALID", `${where} must be an object, got ${kind(d)}`, { field: where });
    for (const r of [
      field(`${where}.index`, d.index, (v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) < 1024, "an integer from 0 to 1023"),
      field(`${where}.id`, d.id, (v) => typeof v === "string", "a string"),
      field(`${where}.function`, d.function, isObject, "an object"),
    ]) if (!r.ok) return r;
    const fn = d.function as Record<string, unknown> | undefined;
    for (const r of [
      field(`${where}.function.name`, fn?.name, (v) => typeof v === "string", "a string"),
      field(`${where}.function.arguments`, fn?.arguments, (v) => typeof v === "string", "a string"),
    ]) if (!r.ok) return r;
  }
  return { ok: true, fields: c };
}
