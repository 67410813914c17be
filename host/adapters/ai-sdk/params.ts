/**
 * The declared chat params (ABI §4.4, `model.chat.before` `params`) as AI SDK call options,
 * both ways: hooks see the caller's settings under the host's names, and every change a
 * hook makes reaches the model. A declared param the AI SDK has no option for
 * (`logit_bias`, `parallel_tool_calls`, `max_completion_tokens`) or a value it cannot
 * express fails the call with PATCH_FORBIDDEN naming it: a hook's change is never dropped.
 */
import type { LanguageModelV4CallOptions } from "@ai-sdk/provider";
import { functionChoice, functionChoiceName, refuseParam, writeSame } from "../shared/params.js";

type Call = LanguageModelV4CallOptions;
type ToolChoice = NonNullable<Call["toolChoice"]>;
type ResponseFormat = NonNullable<Call["responseFormat"]>;

/** Params whose value is the same on both sides, by their AI SDK names. */
const SAME = [["temperature", "temperature"], ["topP", "top_p"], ["maxOutputTokens", "max_tokens"], ["seed", "seed"], ["presencePenalty", "presence_penalty"], ["frequencyPenalty", "frequency_penalty"]] as const;
const NOT_CARRIED = ["logit_bias", "parallel_tool_calls", "max_completion_tokens"] as const;

const refuse = (param: string, why: string): never => refuseParam("AI SDK", param, why);

function toolChoiceShown(c: ToolChoice): unknown {
  return c.type === "tool" ? functionChoice(c.toolName) : c.type;
}

function toolChoiceCarried(v: unknown): ToolChoice {
  if (v === "auto" || v === "none" || v === "required") return { type: v };
  const name = functionChoiceName(v);
  if (name !== undefined) return { type: "tool", toolName: name };
  return refuse("tool_choice", `expected "auto", "none", "required" or { type: "function", function: { name } }`);
}

function responseFormatShown(f: ResponseFormat): unknown {
  if (f.type === "text") return { type: "text" };
  if (f.schema === undefined) return { type: "json_object" };
  return { type: "json_schema", json_schema: { name: f.name ?? "response", schema: f.schema, ...(f.description !== undefined ? { description: f.description } : {}) } };
}

function responseFormatCarried(v: unknown): ResponseFormat {
  const f = v as { type?: unknown; json_schema?: { name?: unknown; schema?: unknown; description?: unknown } };
  if (f.type === "text") return { type: "text" };
  if (f.type === "json_object") return { type: "json" };
  if (f.type === "json_schema" && typeof f.json_schema?.schema === "object" && f.json_schema.schema !== null) {
    const s = f.json_schema;
    return { type: "json", schema: s.schema as Record<string, unknown>, ...(typeof s.name === "string" ? { name: s.name } : {}), ...(typeof s.description === "string" ? { description: s.description } : {}) };
  }
  return refuse("response_format", `expected type "text", "json_object" or "json_schema" with a schema`);
}

/** The params hooks see for this call. */
export function paramsOf(call: Call): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [from, to] of SAME) if (call[from] !== undefined) params[to] = call[from];
  if (call.stopSequences !== undefined) params.stop = call.stopSequences;
  if (call.toolChoice !== undefined) params.tool_choice = toolChoiceShown(call.toolChoice);
  if (call.responseFormat !== undefined) params.response_format = responseFormatShown(call.responseFormat);
  return params;
}

/** Writes the params after the hooks into `out` (the caller's call, copied): what a hook removed is removed. */
export function applyParams(out: Call, shown: Record<string, unknown>, params: Record<string, unknown>): void {
  writeSame(out as Record<string, unknown>, SAME, params);
  // ABI 1.1 allows `stop` as one string; the AI SDK takes a list.
  if (params.stop === undefined) delete out.stopSequences;
  else out.stopSequences = typeof params.stop === "string" ? [params.stop] : (params.stop as string[]);
  const changed = (key: string): boolean => JSON.stringify(params[key]) !== JSON.stringify(shown[key]);
  // Unchanged, the caller's own object goes through (a shown value is a translation of it).
  if (changed("tool_choice")) {
    if (params.tool_choice === undefined) delete out.toolChoice;
    else out.toolChoice = toolChoiceCarried(params.tool_choice);
  }
  if (changed("response_format")) {
    if (params.response_format === undefined) delete out.responseFormat;
    else out.responseFormat = responseFormatCarried(params.response_format);
  }
  for (const key of NOT_CARRIED) if (params[key] !== undefined) refuse(key, "the AI SDK has no such call option");
}
