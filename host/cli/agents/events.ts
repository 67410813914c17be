/**
 * The hook events `sluice agents setup` installs, per agent, spelled as each agent spells
 * them. Every event an agent offers is forwarded (the door maps the ones it knows and
 * answers the rest neutrally, recorded), except those where the mere presence of a command
 * hook changes what the agent does.
 */
export type AgentId = "claude-code" | "codex" | "gemini-cli" | "copilot-cli";

export const AGENT_IDS: readonly AgentId[] = ["claude-code", "codex", "gemini-cli", "copilot-cli"];

export function isAgentId(value: string): value is AgentId {
  return (AGENT_IDS as readonly string[]).includes(value);
}

export const AGENT_EVENTS: Readonly<Record<AgentId, readonly string[]>> = {
  // Left out: WorktreeCreate and WorktreeRemove (a command hook there replaces Claude Code's
  // own git worktree handling and must print the worktree's path), FileChanged (it needs a
  // list of file names as its matcher), Elicitation and ElicitationResult (a hook there
  // answers an MCP server's question for the user).
  "claude-code": [
    "SessionStart", "Setup", "InstructionsLoaded", "UserPromptSubmit", "UserPromptExpansion",
    "PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure", "PostToolBatch",
    "PermissionDenied", "Notification", "MessageDisplay", "SubagentStart", "SubagentStop",
    "TaskCreated", "TaskCompleted", "Stop", "StopFailure", "TeammateIdle", "ConfigChange",
    "CwdChanged", "PreCompact", "PostCompact", "SessionEnd",
  ],
  codex: [
    "SessionStart", "SubagentStart", "PreToolUse", "PermissionRequest", "PostToolUse",
    "PreCompact", "PostCompact", "UserPromptSubmit", "SubagentStop", "Stop",
  ],
  // BeforeModel, AfterModel and BeforeToolSelection run on every model call; they are
  // forwarded too, so an operator sees them, and the door answers them neutrally.
  "gemini-cli": [
    "SessionStart", "SessionEnd", "BeforeAgent", "AfterAgent", "BeforeModel", "AfterModel",
    "BeforeToolSelection", "BeforeTool", "AfterTool", "PreCompress", "Notification",
  ],
  "copilot-cli": [
    "sessionStart", "sessionEnd", "userPromptSubmitted", "preToolUse", "postToolUse",
    "postToolUseFailure", "permissionRequest", "agentStop", "subagentStart", "subagentStop",
    "errorOccurred", "preCompact", "notification",
  ],
};
