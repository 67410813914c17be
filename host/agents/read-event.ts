/**
 * Reads an agent's hook JSON, exactly as the agent sent it, into one shape for every agent.
 * Claude Code, Codex and Gemini CLI write snake_case (`session_id`, `tool_name`,
 * `tool_input`, `tool_response`); Copilot CLI camelCase (`sessionId`, `toolName`,
 * `toolArgs`, `toolResult`). A field an event's kind needs and lacks makes the event
 * malformed, named in the problem.
 */
import type { Agent } from "./agents.js";
import { kindOf, type EventKind } from "./mapping.js";
import { canonicalToolId, mcpParts } from "./tool-ids.js";

/** One agent event, as Sluice reads it. */
export interface AgentEvent {
  agent: Agent;
  event: string;
  kind: EventKind;
  /** The agent's session: the call context's runId. */
  sessionId: string | null;
  cwd: string | null;
  transcriptPath: string | null;
  tool?: {
    /** The agent's own name of the tool. */
    name: string;
    /** The canonical id (tool-ids.ts). */
    id: string;
    mcp: boolean;
    input: Record<string, unknown>;
    /** Present where the agent sends one (Claude Code, Codex). */
    useId: string | null;
    /** tool.after: the tool's response, the real result. */
    response?: unknown;
    /** tool.failed: the agent's description of the failure. */
    error?: string;
    durationMs?: number;
  };
  prompt?: string;
  /** subtask.*: the subagent's id (its instance). */
  subagentId?: string;
}

export type ReadResult = { ok: true; event: AgentEvent } | { ok: false; problem: string; field: string };

const text = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** Copilot sends `toolArgs` as a JSON string; an input that is not an object is shown to hooks as `{ value }`. */
function inputOf(raw: unknown): Record<string, unknown> {
  let v = raw;
  if (typeof v === "string") {
    try { v = JSON.parse(v); } catch { return { value: raw }; }
  }
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : v === undefined ? {} : { value: v };
}

/**
 * @example readEvent("claude-code", "PreToolUse", { session_id: "s1", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "t1" })
 */
export function readEvent(agent: Agent, event: string, body: unknown): ReadResult {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { ok: false, problem: `the ${event} event is not a JSON object`, field: "(body)" };
  const b = body as Record<string, unknown>;
  const camel = agent === "copilot-cli";
  const kind = kindOf(agent, event);
  const f = camel
    ? { session: "sessionId", cwd: "cwd", transcript: "transcriptPath", toolName: "toolName", toolInput: "toolArgs", response: "toolResult", error: "error", prompt: "prompt", subagent: "agentName" }
    : { session: "session_id", cwd: "cwd", transcript: "transcript_path", toolName: "tool_name", toolInput: "tool_input", response: "tool_response", error: "error", prompt: "prompt", subagent: "agent_id" };
  const out: AgentEvent = { agent, event, kind, sessionId: text(b[f.session]), cwd: text(b[f.cwd]), transcriptPath: text(b[f.transcript]) };
  if (kind === "tool.before" || kind === "tool.after" || kind === "tool.failed") {
    const name = text(b[f.toolName]);
    if (name === null) return { ok: false, problem: `the ${event} event has no tool name (${f.toolName})`, field: f.toolName };
    const rawInput = b[f.toolInput];
    if (kind === "tool.before" && rawInput === undefined) return { ok: false, problem: `the ${event} event has no tool input (${f.toolInput})`, field: f.toolInput };
    const mcpContext = b.mcp_context;
    out.tool = { name, id: canonicalToolId(agent, name, mcpContext), mcp: mcpParts(agent, name, mcpContext) !== null, input: inputOf(rawInput), useId: text(b.tool_use_id) };
    if (kind === "tool.after") out.tool.response = b[f.response] ?? null;
    if (kind === "tool.failed") {
      const e = b[f.error] ?? (b.tool_response as Record<string, unknown> | undefined)?.error;
      out.tool.error = typeof e === "string" ? e : typeof e === "object" && e !== null && typeof (e as { message?: unknown }).message === "string" ? (e as { message: string }).message : "the tool failed";
    }
    if (typeof b.duration_ms === "number" && Number.isFinite(b.duration_ms) && b.duration_ms >= 0) out.tool.durationMs = b.duration_ms;
  }
  if (kind === "prompt") {
    const prompt = b[f.prompt];
    if (typeof prompt !== "string") return { ok: false, problem: `the ${event} event has no prompt text (${f.prompt})`, field: f.prompt };
    out.prompt = prompt;
  }
  if (kind === "subtask.start" || kind === "subtask.end") out.subagentId = text(b[f.subagent]) ?? text(b.agent_type) ?? "subagent";
  return { ok: true, event: out };
}
