/**
 * The mapping of the coding agents' hook events onto Sluice's points, as one table of data:
 * agent × event → what the event is (its kind, hence its point), how its payload is read
 * (the agent's dialect, read-event.ts) and how it is answered (replies.ts). docs/agents.md
 * is generated from this table (mapping-docs.ts; `npm run docs:agents`), and a test keeps
 * the two in sync.
 */
import type { Agent } from "./agents.js";
import type { PointName } from "../pipeline/points.js";

/**
 * What an agent's event is to Sluice.
 * - `tool.before`: before the agent runs a tool; may deny, ask or rewrite its input.
 * - `tool.after`: the tool ran; its response is the real result, a hook may hide or replace the view.
 * - `tool.failed`: the tool ran and failed: the operation ends failed (operation.error runs).
 * - `prompt`: the user's prompt, as the user message of model.chat.before; may block it.
 * - `run.start`, `run.end`, `subtask.start`, `subtask.end`: the session's and a subagent's life, observed.
 * - `observe`: answered neutrally and recorded.
 */
export type EventKind = "tool.before" | "tool.after" | "tool.failed" | "prompt" | "run.start" | "run.end" | "subtask.start" | "subtask.end" | "observe";

/** The point each kind runs (tool.failed ends the operation its tool.before opened; its error stage runs). */
export const KIND_POINT: Readonly<Record<EventKind, PointName | null>> = {
  "tool.before": "tool.before",
  "tool.after": "tool.after",
  "tool.failed": "operation.error",
  prompt: "model.chat.before",
  "run.start": "run.start",
  "run.end": "run.end",
  "subtask.start": "subtask.start",
  "subtask.end": "subtask.end",
  observe: null,
};

/** Kinds whose answer can stop the agent: a refusal, a failure or an unreachable server blocks them (fail-closed). */
export const BLOCKING_KINDS: ReadonlySet<EventKind> = new Set(["tool.before", "prompt"]);

/** What an agent lets a hook do, beyond allow and deny before a tool. */
export interface AgentAbilities {
  /**
   * It honours an ask decision before a tool, asking its user (else a hook's ask becomes a
   * deny whose reason says approval is needed). Codex 0.171 takes `permissionDecision:
   * "ask"` as unsupported and runs the command (seen with the real CLI), so it is not
   * counted as having one.
   */
  ask: boolean;
  /**
   * Which tools' output a hook may replace after the tool ran, and with what: "mcp", an MCP
   * tool's, with any JSON value; "mcp-object", an MCP tool's, with a JSON object only (Codex's
   * `updatedMCPToolOutput` is an object: another value makes the whole answer invalid to it,
   * and it would show the unchanged output); "none".
   */
  replaceOutput: "mcp" | "mcp-object" | "none";
  /** It shows a block after a tool to the model (the output itself stays visible unless replaced). */
  blockAfter: boolean;
  /** It takes a hook's added context (`additionalContext`). */
  context: boolean;
  /** It blocks a prompt on the hook's answer. */
  blockPrompt: boolean;
  /** The agent sends a tool-use id that pairs its before and after events. */
  toolUseId: boolean;
  /** Its hook timeout by default, in seconds: the door answers well within it. */
  timeoutS: number;
  /** A rewritten input is applied only with an explicit allow (Codex); an allow where it is not needed would skip the agent's own permission prompt (Claude Code). */
  rewriteNeedsAllow: boolean;
}

export interface AgentSpec {
  abilities: AgentAbilities;
  /** Its events, as the agent spells them, and their kind. Events not listed are `observe`. */
  events: Readonly<Record<string, EventKind>>;
  /**
   * Other names of its events, in a form the door does not read, and the name to configure
   * instead: refused (a block before a tool and at a prompt) rather than answered as if
   * nothing were wrong, which would let a tool run unjudged.
   */
  unserved?: Readonly<Record<string, string>>;
}

/** The table. */
export const AGENT_TABLE: Readonly<Record<Agent, AgentSpec>> = {
  "claude-code": {
    abilities: { ask: true, replaceOutput: "mcp", blockAfter: true, context: true, blockPrompt: true, toolUseId: true, timeoutS: 60, rewriteNeedsAllow: false },
    events: {
      PreToolUse: "tool.before", PostToolUse: "tool.after", PostToolUseFailure: "tool.failed", UserPromptSubmit: "prompt",
      SessionStart: "run.start", SessionEnd: "run.end", SubagentStart: "subtask.start", SubagentStop: "subtask.end",
      Stop: "observe", Notification: "observe", PreCompact: "observe", PermissionRequest: "observe",
    },
  },
  codex: {
    abilities: { ask: false, replaceOutput: "mcp-object", blockAfter: true, context: true, blockPrompt: true, toolUseId: true, timeoutS: 60, rewriteNeedsAllow: true },
    events: {
      PreToolUse: "tool.before", PostToolUse: "tool.after", UserPromptSubmit: "prompt",
      SessionStart: "run.start", SubagentStart: "subtask.start", SubagentStop: "subtask.end",
      Stop: "observe", PermissionRequest: "observe", PreCompact: "observe", PostCompact: "observe",
    },
  },
  "gemini-cli": {
    abilities: { ask: false, replaceOutput: "none", blockAfter: true, context: true, blockPrompt: true, toolUseId: false, timeoutS: 60, rewriteNeedsAllow: false },
    events: {
      BeforeTool: "tool.before", AfterTool: "tool.after", BeforeAgent: "prompt",
      SessionStart: "run.start", SessionEnd: "run.end",
      AfterAgent: "observe", BeforeModel: "observe", AfterModel: "observe", BeforeToolSelection: "observe", PreCompress: "observe", Notification: "observe",
    },
  },
  "copilot-cli": {
    abilities: { ask: false, replaceOutput: "none", blockAfter: false, context: false, blockPrompt: false, toolUseId: false, timeoutS: 30, rewriteNeedsAllow: false },
    events: {
      preToolUse: "tool.before", postToolUse: "tool.after", postToolUseFailure: "tool.failed", userPromptSubmitted: "prompt",
      sessionStart: "run.start", sessionEnd: "run.end", subagentStart: "subtask.start", subagentStop: "subtask.end",
      agentStop: "observe", errorOccurred: "observe", notification: "observe", permissionRequest: "observe", preCompact: "observe",
    },
    // Copilot CLI also takes its events' VS Code-compatible names, and then sends snake_case fields.
    unserved: {
      PreToolUse: "preToolUse", PostToolUse: "postToolUse", PostToolUseFailure: "postToolUseFailure", UserPromptSubmit: "userPromptSubmitted",
      SessionStart: "sessionStart", SessionEnd: "sessionEnd", SubagentStart: "subagentStart", SubagentStop: "subagentStop",
      Stop: "agentStop", ErrorOccurred: "errorOccurred", Notification: "notification", PermissionRequest: "permissionRequest", PreCompact: "preCompact",
    },
  },
};

/** An agent's event names are short words in its own spelling; anything else is refused before it is looked up or recorded. */
export const EVENT_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

/**
 * What an agent's event is (`observe` for one the table does not list); an unserved name is
 * the kind of the event it names.
 * @example kindOf("gemini-cli", "BeforeTool") // "tool.before"
 */
export function kindOf(agent: Agent, event: string): EventKind {
  const { events } = AGENT_TABLE[agent];
  const name = unservedEvent(agent, event) ?? event;
  return Object.hasOwn(events, name) ? events[name]! : "observe";
}

/**
 * The event to configure instead, when `event` is a name of the agent's that the door does
 * not read, or one of its events spelled in another case (a hook on `pretooluse` would
 * otherwise be answered as an event the table does not list, and its tool run unjudged).
 * @example unservedEvent("copilot-cli", "PreToolUse") // "preToolUse"
 * @example unservedEvent("claude-code", "pretooluse") // "PreToolUse"
 */
export function unservedEvent(agent: Agent, event: string): string | null {
  const { unserved, events } = AGENT_TABLE[agent];
  if (unserved && Object.hasOwn(unserved, event)) return unserved[event]!;
  if (Object.hasOwn(events, event)) return null;
  const lower = event.toLowerCase();
  return Object.keys(events).find((name) => name.toLowerCase() === lower) ?? null;
}
