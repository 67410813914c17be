import { randomUUID } from "node:crypto";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type Implementation, type Tool } from "@modelcontextprotocol/sdk/types.js";
import type { CallContext, Host } from "../../index.js";
import { McpToolError, resultOf } from "./result.js";

/** What the proxy knows of the request in front of it when it builds the hooks' context. */
export interface McpCallInfo {
  name: string;
  sessionId?: string;
  authInfo?: unknown;
}

/** Options of {@link createMcpProxy}. */
export interface McpProxyOptions {
  host: Host;
  /** A connected client of the upstream MCP server whose tools are guarded. */
  upstream: Client;
  /** The hooks' context of each call (space, actor, run, ...): a fixed one, or one per call. */
  context: CallContext | ((call: McpCallInfo) => CallContext);
  /** The `toolId` bindings match for a tool; the tool's name by default. */
  toolId?: (name: string) => string;
  /** How the proxy introduces itself to its clients. */
  serverInfo?: Implementation;
}

/**
 * An MCP server in front of an upstream MCP client: `tools/list` is passed through, and
 * every `tools/call` runs through `tool.before` / `tool.after` with the tool's own input
 * schema. An upstream `isError` result is a failed real call; a hook's reject comes back
 * as an `isError` result naming the binding, so the model can see why.
 *
 * @example
 * const proxy = createMcpProxy({ host, upstream: client, context: { spaceId: "support" } });
 * await proxy.connect(new StdioServerTransport());
 */
export function createMcpProxy(options: McpProxyOptions): Server {
  const { host, upstream } = options;
  const server = new Server(options.serverInfo ?? { name: "sluice-mcp-proxy", version: "1.0.0" }, { capabilities: { tools: {} } });
  const tools = new Map<string, Tool>();

  server.setRequestHandler(ListToolsRequestSchema, async (request, extra) => {
    const listed = await upstream.listTools(request.params, { signal: extra.signal });
    for (const t of listed.tools) tools.set(t.name, t);
    return listed;
  });

  // A call before any listing (or for a tool added since) reads the whole list once more.
  const toolNamed = async (name: string, signal: AbortSignal): Promise<Tool | undefined> => {
    if (!tools.has(name)) {
      let cursor: string | undefined;
      do {
        const page = await upstream.listTools(cursor ? { cursor } : undefined, { signal });
        for (const t of page.tools) tools.set(t.name, t);
        cursor = page.nextCursor;
      } while (cursor);
    }
    return tools.get(name);
  };

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args = {} } = request.params;
    const tool = await toolNamed(name, extra.signal);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `tool ${name} is not offered by the upstream server`);
    const info: McpCallInfo = { name, ...(extra.sessionId ? { sessionId: extra.sessionId } : {}), ...(extra.authInfo ? { authInfo: extra.authInfo } : {}) };
    const base = typeof options.context === "function" ? options.context(info) : options.context;
    const ctx: CallContext = { ...base, signal: base.signal ? AbortSignal.any([base.signal, extra.signal]) : extra.signal };
    const r = await host.tool(
      ctx,
      { toolId: options.toolId ? options.toolId(name) : name, name, schema: tool.inputSchema as Record<string, unknown>, arguments: args, callId: randomUUID() },
      async (finalArgs, op) => {
        const result = await upstream.callTool({ name, arguments: finalArgs }, undefined, { signal: op.signal });
        if (result.isError) throw new McpToolError(result as never);
        return result;
      },
    );
    return resultOf(r);
  });
  return server;
}
