import { asSchema, type Tool, type ToolExecutionOptions, type ToolSet } from "ai";
import { SluiceError, type CallContext, type Host } from "../../index.js";

/** Options of {@link guardTools}. */
export interface GuardToolsOptions {
  host: Host;
  /** The hooks' context of each call: a fixed one, or one per call (the AI SDK's execution options in hand). */
  context: CallContext | ((call: { name: string; options: ToolExecutionOptions<unknown> }) => CallContext);
  /** The `toolId` bindings match for a tool; its key in the tool set by default. */
  toolId?: (name: string) => string;
}

async function last<T>(output: AsyncIterable<T> | PromiseLike<T> | T): Promise<T> {
  if (output && typeof (output as AsyncIterable<T>)[Symbol.asyncIterator] === "function") {
    let value: T | undefined;
    for await (const v of output as AsyncIterable<T>) value = v;
    return value as T;
  }
  return output as T;
}

/**
 * The same tools, each `execute` run through `tool.before` / `tool.after` with the tool's
 * input schema: hooks may clamp the input, reject the call or serve the result; the tool
 * returns the view `tool.after` left. A refused or failed call throws a SluiceError,
 * which the AI SDK reports to the model as the tool's error: for a failed tool, with the
 * failure's view as `tool.after` left it (the original error is its `cause`). Tools without `execute`
 * (client-side tools) are left as they are.
 *
 * @example
 * const tools = guardTools({ search: tool({ inputSchema, execute: search }) }, { host, context: { spaceId: "support" } });
 * await generateText({ model, tools, prompt: "find my orders" });
 */
export function guardTools<T extends ToolSet>(tools: T, options: GuardToolsOptions): T {
  const out: Record<string, Tool> = {};
  for (const [name, tool] of Object.entries(tools) as [string, Tool][]) {
    const execute = tool.execute;
    if (!execute) { out[name] = tool; continue; }
    out[name] = {
      ...tool,
      execute: async (input: unknown, execOptions: ToolExecutionOptions<unknown>) => {
        const base = typeof options.context === "function" ? options.context({ name, options: execOptions }) : options.context;
        const signals = [base.signal, execOptions.abortSignal].filter((s): s is AbortSignal => s !== undefined);
        const ctx: CallContext = { ...base, ...(signals.length ? { signal: signals.length === 1 ? signals[0]! : AbortSignal.any(signals) } : {}) };
        const schema = (await asSchema(tool.inputSchema).jsonSchema) as Record<string, unknown>;
        const r = await options.host.tool(
          ctx,
          { toolId: options.toolId ? options.toolId(name) : name, name, schema, arguments: input as Record<string, unknown>, callId: execOptions.toolCallId },
          (args, op) => last(execute(args, { ...execOptions, abortSignal: op.signal })),
        );
        if (r.ok) return r.output.view;
        // A failed tool: the model is shown the failure as tool.after left it (a redactor ran on it), never the raw error text.
        const failed = r.output?.view as { error?: unknown } | undefined;
        if (failed === undefined) throw r.error;
        const { cause: _cause, ...details } = r.error.details;
        throw new SluiceError(r.error.code, typeof failed?.error === "string" ? failed.error : JSON.stringify(failed), details, { cause: r.error });
      },
    } as Tool;
  }
  return out as T;
}
