/**
 * How each agent is answered: Sluice's verdict on an event in the agent's own reply format
 * (HTTP 200 with this JSON through the door; stdout through sluice-hook). Shapes as each
 * agent documents them: Claude Code and Codex `hookSpecificOutput` with `permissionDecision`
 * before a tool and a top-level `decision: "block"` elsewhere; Gemini CLI a top-level
 * `decision: "deny"` and `hookSpecificOutput.tool_input`; Copilot CLI a flat
 * `permissionDecision` and `modifiedArgs`.
 */
import type { Agent } from "./agents.js";
import { AGENT_TABLE, type EventKind } from "./mapping.js";

/** Sluice's answer to one event, before it is put in the agent's words. */
export type Verdict =
  | { kind: "continue"; updatedInput?: Record<string, unknown>; context?: string }
  /** Before a tool: the tool does not run, and the reason reaches the model. */
  | { kind: "deny"; reason: string }
  /** Before a tool: the user is asked (a deny saying approval is needed where the agent cannot ask). */
  | { kind: "ask"; reason: string }
  /** After a tool or at a prompt: the agent is told to stop with the reason. */
  | { kind: "block"; reason: string; context?: string }
  /** After a tool: what the model sees instead of the tool's output (where the agent lets a hook replace it). */
  | { kind: "replace"; output: unknown; context?: string };

type Json = Record<string, unknown>;

/** Where the agent cannot ask its user, the model is told why the call was denied: it needs someone's approval. */
const approvalNeeded = (agent: Agent, reason: string): string => `approval needed (${agent} cannot ask for it from a hook, so the call is denied): ${reason}`;

/**
 * The agent's reply to `event` (of `kind`) carrying `verdict`.
 * @example reply("copilot-cli", "preToolUse", "tool.before", { kind: "deny", reason: "shell-guard: recursive delete" })
 * // { permissionDecision: "deny", permissionDecisionReason: "shell-guard: recursive delete" }
 */
export function reply(agent: Agent, event: string, kind: EventKind, verdict: Verdict): Json {
  const can = AGENT_TABLE[agent].abilities;
  let v = verdict;
  if (v.kind === "ask" && !can.ask) v = { kind: "deny", reason: approvalNeeded(agent, v.reason) };
  const context = can.context && "context" in v && v.context ? v.context : undefined;
  if (kind === "tool.before") return beforeTool(agent, event, v, context);
  if (kind === "tool.after") return afterTool(agent, event, v, context);
  if (kind === "prompt") return prompt(agent, event, v, context);
  return {};
}

function beforeTool(agent: Agent, event: string, v: Verdict, context: string | undefined): Json {
  const denied = v.kind === "deny" || v.kind === "block" ? v.reason : undefined;
  const updated = v.kind === "continue" ? v.updatedInput : undefined;
  switch (agent) {
    case "claude-code":
    case "codex": {
      const specific: Json = { hookEventName: event };
      if (denied !== undefined) Object.assign(specific, { permissionDecision: "deny", permissionDecisionReason: denied });
      else if (v.kind === "ask") Object.assign(specific, { permissionDecision: "ask", permissionDecisionReason: v.reason });
      if (updated) {
        specific.updatedInput = updated;
        if (AGENT_TABLE[agent].abilities.rewriteNeedsAllow) specific.permissionDecision = "allow";
      }
      if (context !== undefined) specific.additionalContext = context;
      return Object.keys(specific).length > 1 ? { hookSpecificOutput: specific } : {};
    }
    case "gemini-cli": {
      if (denied !== undefined) return { decision: "deny", reason: denied };
      const specific: Json = {};
      if (updated) specific.tool_input = updated;
      if (context !== undefined) specific.additionalContext = context;
      return Object.keys(specific).length > 0 ? { hookSpecificOutput: specific } : {};
    }
    case "copilot-cli":
      if (denied !== undefined) return { permissionDecision: "deny", permissionDecisionReason: denied };
      return updated ? { modifiedArgs: updated } : {};
  }
}

function afterTool(agent: Agent, event: string, v: Verdict, context: string | undefined): Json {
  const can = AGENT_TABLE[agent].abilities;
  let out: Json = {};
  if (v.kind === "block" || v.kind === "deny") {
    if (!can.blockAfter) return {};
    out = agent === "gemini-cli" ? { decision: "deny", reason: v.reason } : { decision: "block", reason: v.reason };
  }
  const specific: Json = agent === "gemini-cli" ? {} : { hookEventName: event };
  if (v.kind === "replace") specific.updatedMCPToolOutput = v.output;
  if (context !== undefined) specific.additionalContext = context;
  if (Object.keys(specific).length > (agent === "gemini-cli" ? 0 : 1)) out.hookSpecificOutput = specific;
  return out;
}

function prompt(agent: Agent, event: string, v: Verdict, context: string | undefined): Json {
  const can = AGENT_TABLE[agent].abilities;
  if (v.kind === "block" || v.kind === "deny") {
    if (!can.blockPrompt) return {};
    return agent === "gemini-cli" ? { decision: "deny", reason: v.reason } : { decision: "block", reason: v.reason };
  }
  if (context === undefined) return {};
  return agent === "gemini-cli" ? { hookSpecificOutput: { additionalContext: context } } : { hookSpecificOutput: { hookEventName: event, additionalContext: context } };
}

/**
 * The answer to an event Sluice could not judge (malformed, oversized, unauthenticated, the
 * server failing): the agent's block before a tool or at a prompt, with the reason; neutral
 * elsewhere.
 */
export function refusal(agent: Agent, event: string, kind: EventKind, reason: string): Json {
  if (kind === "tool.before") return reply(agent, event, kind, { kind: "deny", reason });
  if (kind === "prompt") return reply(agent, event, kind, { kind: "block", reason });
  return {};
}
