/**
 * The declared chat params (ABI §4.4, `model.chat.before` `params`) a LangChain call carries
 * in its call options, both ways: `stop` and `tool_choice`. The sampling settings of a
 * LangChain chat model live on the model object (its constructor fields), not on the call,
 * so a hook that sets any other declared param fails the call with PATCH_FORBIDDEN naming
 * it: the adapter cannot pass it to the model, and a hook's change is never dropped.
 */
import { functionChoice, functionChoiceName, refuseParam } from "../shared/params.js";

const MODES: Record<string, string> = { auto: "auto", none: "none", any: "required" };

const refuse = (param: string, why: string): never => refuseParam("LangChain", param, why);

/** The params hooks see for these call options. */
export function paramsOf(options: { stop?: string[]; tool_choice?: unknown }): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  if (options.stop !== undefined) params.stop = options.stop;
  const choice = options.tool_choice;
  if (typeof choice === "string") params.tool_choice = MODES[choice] ?? functionChoice(choice);
  else if (choice !== undefined) params.tool_choice = choice;
  return params;
}

/** The wrapped model's call options with the params after the hooks (`call` is the caller's, copied). */
export function optionsAfter(call: Record<string, unknown>, shown: Record<string, unknown>, params: Record<string, unknown>): Record<string, unknown> {
  const out = { ...call };
  if (params.stop === undefined) delete out.stop;
  else out.stop = typeof params.stop === "string" ? [params.stop] : params.stop;
  // Unchanged, the caller's own value goes through (the shown one is a translation of it).
  if (JSON.stringify(params.tool_choice) !== JSON.stringify(shown.tool_choice)) {
    const choice = params.tool_choice;
    const name = functionChoiceName(choice);
    if (choice === undefined) delete out.tool_choice;
    else if (choice === "auto" || choice === "none") out.tool_choice = choice;
    else if (choice === "required") out.tool_choice = "any";
    else if (name !== undefined) out.tool_choice = name;
    else refuse("tool_choice", `expected "auto", "none", "required" or { type: "function", function: { name } }`);
  }
  for (const key of Object.keys(params)) if (key !== "stop" && key !== "tool_choice") refuse(key, "a LangChain model's sampling settings are fields of the model, not options of the call");
  return out;
}
