import type { FunctionTool } from "@openai/agents";
import type { CallContext, Host } from "../../index.js";

/** Options of {@link guardTool}. */
export interface GuardToolOptions {
  host: Host;
  /** The hooks' context of each call: a fixed one, or one per call. */
  context: CallContext | ((call: { name: string; callId: string }) => CallContext);
  /** The `toolId` bindings match; the tool's name by default. */
  toolId?: string;
}

/**
 * The same function tool, its `invoke` run through `tool.before` / `tool.after` with the
 * tool's parameters schema: hooks may clamp the arguments, reject the call or serve the
 * result; the model is shown the view `tool.after` left, or why the call was refused.
 *
 * @example
 * const agent = new Agent({ name: "support", model, tools: [guardTool(searchOrders, { host, context: { spaceId: "support" } })] });
 */
export function guardTool<C, P extends FunctionTool<C, never, unknown>>(tool: P, options: GuardToolOptions): P;
export function guardTool(tool: FunctionTool<unknown, never, unknown>, options: GuardToolOptions): FunctionTool<unknown, never, unknown> {
  const invoke = tool.invoke;
  return {
    ...tool,
    invoke: async (runContext, input, details) => {
      const callId = details?.toolCall?.callId ?? "";
      const base = typeof options.context === "function" ? options.context({ name: tool.name, callId }) : options.context;
      const signals = [base.signal, details?.signal].filter((s): s is AbortSignal => s !== undefined);
      const ctx: CallContext = { ...base, ...(signals.length ? { signal: signals.length === 1 ? signals[0]! : AbortSignal.any(signals) } : {}) };
      let args: Record<string, unknown>;
      try {
        args = JSON.parse(input === "" ? "{}" : input) as Record<string, unknown>;
      } catch {
        // Broken JSON from the model: the tool's own parsing reports it, as without Sluice.
        return invoke(runContext, input, details);
      }
      const r = await options.host.tool(ctx, { toolId: options.toolId ?? tool.name, name: tool.name, schema: tool.parameters as Record<string, unknown>, arguments: args, callId },
        (finalArgs, op) => invoke(runContext, JSON.stringify(finalArgs), { ...details, signal: op.signal }));
      if (r.ok) return r.output.view;
      const failed = r.output?.view as { error?: unknown } | undefined;
      return failed !== undefined ? (typeof failed?.error === "string" ? failed.error : JSON.stringify(failed)) : r.error.message;
    },
  };
}
