/** `sluice/mcp`: a guarding MCP proxy that runs every tool call through the host's hooks. */
export { createMcpProxy, type McpProxyOptions, type McpCallInfo } from "./proxy.js";
