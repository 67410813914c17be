/**
 * Canonical tool ids: one binding on `shell` covers every agent's shell tool. Any other tool
 * is `<agent>.<ToolName>`, MCP tools `mcp.<server>.<tool>`.
 */
import type { Agent } from "./agents.js";

/** The agents' own names of the tools that have a canonical id, as each agent spells them. */
export const CANONICAL_TOOLS: Readonly<Record<Agent, Readonly<Record<string, string>>>> = {
  "claude-code": { Bash: "shell", Read: "file.read", Write: "file.write", Edit: "file.edit", MultiEdit: "file.edit", NotebookEdit: "file.edit", WebFetch: "web.fetch", WebSearch: "web.search" },
  codex: { Bash: "shell", shell: "shell", local_shell: "shell", exec_command: "shell", apply_patch: "file.edit", Read: "file.read", Write: "file.write", Edit: "file.edit", WebFetch: "web.fetch", WebSearch: "web.search", web_search: "web.search" },
  "gemini-cli": { run_shell_command: "shell", read_file: "file.read", read_many_files: "file.read", write_file: "file.write", replace: "file.edit", web_fetch: "web.fetch", google_web_search: "web.search" },
  "copilot-cli": { bash: "shell", shell: "shell", powershell: "shell", view: "file.read", create: "file.write", edit: "file.edit", str_replace: "file.edit", web_fetch: "web.fetch" },
};

/** An MCP tool's server and tool, when the agent's name (or Gemini's mcp_context) says it is one. */
export function mcpParts(agent: Agent, toolName: string, mcpContext?: unknown): { server: string; tool: string } | null {
  // Claude Code and Codex: mcp__<server>__<tool>.
  const claude = /^mcp__([^_].*?)__(.+)$/.exec(toolName);
  if (claude && (agent === "claude-code" || agent === "codex")) return { server: claude[1]!, tool: claude[2]! };
  if (agent === "gemini-cli" && typeof mcpContext === "object" && mcpContext !== null) {
    const server = (mcpContext as Record<string, unknown>).server_name;
    if (typeof server === "string" && server !== "") return { server, tool: toolName.startsWith(`${server}__`) ? toolName.slice(server.length + 2) : toolName };
  }
  return null;
}

/**
 * The canonical id of an agent's tool.
 * @example canonicalToolId("gemini-cli", "run_shell_command") // "shell"
 * @example canonicalToolId("claude-code", "mcp__github__create_issue") // "mcp.github.create_issue"
 * @example canonicalToolId("claude-code", "Task") // "claude-code.Task"
 */
export function canonicalToolId(agent: Agent, toolName: string, mcpContext?: unknown): string {
  // Own names only: a tool named `constructor` or `__proto__` is `<agent>.constructor`, not a member of Object.prototype.
  const known = Object.hasOwn(CANONICAL_TOOLS[agent], toolName) ? CANONICAL_TOOLS[agent][toolName] : undefined;
  if (known) return known;
  const mcp = mcpParts(agent, toolName, mcpContext);
  return mcp ? `mcp.${mcp.server}.${mcp.tool}` : `${agent}.${toolName}`;
}
