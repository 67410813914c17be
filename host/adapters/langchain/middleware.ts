import { createMiddleware, ToolMessage, type AgentMiddleware, type ToolCallRequest } from "langchain";
import type { BaseMessage } from "@langchain/core/messages";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import type { CallContext, Host } from "../../index.js";
import { SluiceChatModel, type WrappedChatModel } from "./chat-model.js";
import { resolveModel } from "./inner-model.js";
import { textOf } from "./messages.js";

/** Options of {@link sluiceMiddleware}. */
export interface SluiceMiddlewareOptions {
  host: Host;
  /** The hooks' context of each call: a fixed one, or one per call. */
  context: CallContext | ((call: { kind: "model"; messages: BaseMessage[] } | { kind: "tool"; request: ToolCallRequest }) => CallContext);
  /** The `toolId` bindings match for a tool; its name by default. */
  toolId?: (name: string) => string;
}

function schemaOf(tool: unknown): Record<string, unknown> {
  const schema = (tool as { schema?: unknown } | undefined)?.schema;
  if (schema === undefined) return { type: "object" };
  return toJsonSchema(schema as never) as Record<string, unknown>;
}

/**
 * `createAgent` middleware: every model call goes through the host, and every tool call
 * through `tool.before` / `tool.after`. The agent's model (a chat model, a binding of one,
 * or the model `createAgent` builds from a name) is wrapped in a {@link SluiceChatModel}:
 * it runs with no callback manager, so streamed tokens reach `streamMode: "messages"`, the
 * run's callbacks and LangSmith only after the chunk hooks, and no callback or tracer set
 * on the model itself sees a raw token. A model that cannot run that way (`withRetry`,
 * `withFallbacks`, a lambda) fails the model call with CONFIG_INVALID.
 * A refused tool call becomes an error ToolMessage naming the binding, which the model sees.
 *
 * @example
 * const agent = createAgent({ model, tools, middleware: [sluiceMiddleware({ host, context: { spaceId: "support" } })] });
 * await agent.invoke({ messages: [{ role: "user", content: "find my orders" }] });
 */
export function sluiceMiddleware(options: SluiceMiddlewareOptions): AgentMiddleware {
  const { host } = options;
  const wrapped = new WeakMap<object, SluiceChatModel>();
  const guard = (model: WrappedChatModel): WrappedChatModel => {
    // A SluiceChatModel, bound or not, is guarded already: what reaches its callbacks is hooked.
    if (model instanceof SluiceChatModel || resolveModel(model).model instanceof SluiceChatModel) return model;
    let m = wrapped.get(model);
    if (!m) wrapped.set(model, (m = new SluiceChatModel({ model, host, context: (messages) => contextOf({ kind: "model", messages }) })));
    return m;
  };
  const contextOf = (call: Parameters<Extract<SluiceMiddlewareOptions["context"], (...a: never[]) => unknown>>[0]): CallContext =>
    typeof options.context === "function" ? options.context(call) : options.context;

  return createMiddleware({
    name: "SluiceMiddleware",
    wrapModelCall: (request, handler) => handler({ ...request, model: guard(request.model as unknown as WrappedChatModel) as never }),
    wrapToolCall: async (request, handler) => {
      const { toolCall } = request;
      const callId = toolCall.id ?? "";
      let message: ToolMessage | undefined;
      let other: unknown;
      const r = await host.tool(
        contextOf({ kind: "tool", request: request as ToolCallRequest }),
        { toolId: options.toolId ? options.toolId(toolCall.name) : toolCall.name, name: toolCall.name, schema: schemaOf(request.tool), arguments: toolCall.args, callId },
        async (args) => {
          const out = await handler({ ...request, toolCall: { ...toolCall, args } });
          if (!ToolMessage.isInstance(out)) { other = out; return null; }
          message = out;
          // A tool that reported an error is a failed real call; its text becomes the failure's view.
          if (out.status === "error") throw new Error(textOf(out.content));
          return out.content;
        },
      );
      // A Command (a tool that updates the agent's state) goes back as the tool returned it.
      if (other !== undefined) return other as never;
      const view = r.ok ? r.output.view : r.output?.view !== undefined ? ((r.output.view as { error?: unknown }).error ?? r.output.view) : r.error.message;
      return new ToolMessage({
        content: typeof view === "string" ? view : Array.isArray(view) ? view : JSON.stringify(view),
        tool_call_id: callId, name: toolCall.name,
        ...(message?.artifact !== undefined ? { artifact: message.artifact } : {}),
        ...(r.ok && r.output.status === "succeeded" ? {} : { status: "error" as const }),
      });
    },
  }) as AgentMiddleware;
}
