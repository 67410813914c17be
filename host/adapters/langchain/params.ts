/**
 * The declared chat params (ABI §4.4, `model.chat.before` `params`) a LangChain call carries
 * in its call options, both ways: `stop` and `tool_choice`. The sampling settings of a
 * LangChain chat model live on the model object (its constructor fields), not on the call,
 * so a hook that sets any other declared param fails the call with PATCH_FORBIDDEN naming
 * it: the adapter cannot pass it to the model, and a hook's change is never dropped.
 */
import { SluiceError } from "../../errors/sluice-error.js";

const MODES: Record<string, string> = { auto: "auto", none: "none", any: "required" };

function refuse(param: string, why: string): never {
  throw new SluiceError("PATCH_FORBIDDEN", `a hook set params.${param}, which the LangChain adapter cannot pass to the model: ${why}`, { path: `/params/${param}` });
}

/** The params hooks see for these call options. */
export function paramsOf(options: { stop?: string[]; tool_choice?: unknown }): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  if (options.stop !== undefined) params.stop = options.stop;
  const choice = options.tool_choice;
  if (typeof choice === "string") params.tool_choice = MODES[choice] ?? { type: "function", function: { name: choice } };
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
    const name = (choice as { type?: unknown; function?: { name?: unknown } } | undefined)?.function?.name;
    if (choice === undefined) delete out.tool_choice;
    else if (choice === "auto" || choice === "none") out.tool_choice = choice;
    else if (choice === "required") out.tool_choice = "any";
    else if ((choice as { type?: unknown }).type === "function" && typeof name === "string") out.tool_choice = name;
    else refuse("tool_choice", `expected "auto", "none", "required" or { type: "function", function: { name } }`);
  }
  for (const key of Object.keys(params)) if (key !== "stop" && key !== "tool_choice") refuse(key, "a LangChain model's sampling settings are fields of the model, not options of the call");
  return out;
}
