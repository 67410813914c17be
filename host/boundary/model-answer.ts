/**
 * What a service's model call must return, checked before anything reads it: an answer
 * (or a stream chunk) that is not an object, or whose known fields have the wrong type, is
 * MODEL_OUTPUT_INVALID naming the field, never a TypeError thrown out of the boundary.
 * Only the fields the host reads are checked; anything else a provider adds passes
 * through. Messages name paths and types, never the model's text.
 */
import { fail, OK, type Checked } from "../pipeline/result.js";

const kind = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "an array" : typeof v);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function field(where: string, value: unknown, ok: (v: unknown) => boolean, expected: string): Checked {
  return value === undefined || ok(value) ? OK : fail("MODEL_OUTPUT_INVALID", `${where} must be ${expected}, got ${kind(value)}`, { field: where });
}

function usageProblem(where: string, usage: unknown): Checked {
  if (usage === undefined || usage === null) return OK;
  if (!isObject(usage)) return fail("MODEL_OUTPUT_INVALID", `${where} must be an object, got ${kind(usage)}`, { field: where });
  for (const key of ["input_tokens", "output_tokens"]) {
    const c = field(`${where}.${key}`, usage[key], (v) => typeof v === "number" && Number.isFinite(v) && v >= 0, "a non-negative number");
    if (!c.ok) return c;
  }
  return OK;
}

/** The answer of a (non-streamed) chat call. */
export function answerProblem(answer: unknown): Checked {
  if (!isObject(answer)) return fail("MODEL_OUTPUT_INVALID", `the model's answer must be an object (content, tool_calls, finish_reason, usage), got ${kind(answer)}`, { field: "answer" });
  const checks = [
    field("content", answer.content, (v) => typeof v === "string" || v === null, "a string or null"),
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

/** One chunk of a streamed chat call; `index` is its position in the stream. */
export function chunkProblem(chunk: unknown, index: number): Checked {
  const at = `chunk ${index}`;
  if (!isObject(chunk)) return fail("MODEL_OUTPUT_INVALID", `stream ${at} must be an object (delta, tool_calls, finish_reason, usage), got ${kind(chunk)}`, { field: at });
  const checks = [
    field(`${at}.delta`, chunk.delta, (v) => typeof v === "string", "a string"),
    field(`${at}.finish_reason`, chunk.finish_reason, (v) => typeof v === "string" || v === null, "a string"),
    field(`${at}.tool_calls`, chunk.tool_calls, Array.isArray, "an array"),
    usageProblem(`${at}.usage`, chunk.usage),
  ];
  for (const c of checks) if (!c.ok) return c;
  for (const [i, d] of ((chunk.tool_calls as unknown[] | undefined) ?? []).entries()) {
    const where = `${at}.tool_calls[${i}]`;
    if (!isObject(d)) return fail("MODEL_OUTPUT_INVALID", `${where} must be an object, got ${kind(d)}`, { field: where });
    for (const c of [
      field(`${where}.index`, d.index, (v) => Number.isInteger(v) && (v as number) >= 0 && (v as number) < 1024, "an integer from 0 to 1023"),
      field(`${where}.id`, d.id, (v) => typeof v === "string", "a string"),
      field(`${where}.function`, d.function, isObject, "an object"),
    ]) if (!c.ok) return c;
    const fn = d.function as Record<string, unknown> | undefined;
    for (const c of [
      field(`${where}.function.name`, fn?.name, (v) => typeof v === "string", "a string"),
      field(`${where}.function.arguments`, fn?.arguments, (v) => typeof v === "string", "a string"),
    ]) if (!c.ok) return c;
  }
  return OK;
}
