/**
 * The declared chat params (ABI §4.4, `model.chat.before` `params`) as the Agents SDK's
 * ModelSettings, both ways: hooks see the runner's settings under the host's names, and
 * every change a hook makes reaches the model. A declared param ModelSettings has no field
 * for (`seed`, `stop`, `logit_bias`, `response_format`, `max_completion_tokens`) or a value
 * it cannot express fails the call with PATCH_FORBIDDEN naming it: a change is never dropped.
 */
import type { ModelSettings } from "@openai/agents";
import { functionChoice, functionChoiceName, refuseParam, writeSame } from "../shared/params.js";

/** Settings whose value is the same on both sides, by their Agents SDK names. */
const SAME = [["temperature", "temperature"], ["topP", "top_p"], ["maxTokens", "max_tokens"], ["frequencyPenalty", "frequency_penalty"], ["presencePenalty", "presence_penalty"], ["parallelToolCalls", "parallel_tool_calls"]] as const;
const NOT_CARRIED = ["seed", "stop", "logit_bias", "response_format", "max_completion_tokens"] as const;
const MODES = ["auto", "required", "none"];

const refuse = (param: string, why: string): never => refuseParam("Agents SDK", param, why);

/** The params hooks see for these settings. */
export function paramsOf(settings: ModelSettings): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [from, to] of SAME) if (settings[from] !== undefined) params[to] = settings[from];
  const choice = settings.toolChoice;
  if (choice !== undefined) params.tool_choice = MODES.includes(choice) ? choice : functionChoice(choice);
  return params;
}

/** The runner's settings with the params after the hooks: what a hook removed is removed. */
export function settingsAfter(settings: ModelSettings, params: Record<string, unknown>): ModelSettings {
  const out: Record<string, unknown> = { ...settings };
  writeSame(out, SAME, params);
  const choice = params.tool_choice;
  const name = functionChoiceName(choice);
  if (choice === undefined) delete out.toolChoice;
  else if (typeof choice === "string" && MODES.includes(choice)) out.toolChoice = choice;
  else if (name !== undefined) out.toolChoice = name;
  else refuse("tool_choice", `expected "auto", "required", "none" or { type: "function", function: { name } }`);
  for (const key of NOT_CARRIED) if (params[key] !== undefined) refuse(key, "ModelSettings has no such setting");
  return out as ModelSettings;
}
