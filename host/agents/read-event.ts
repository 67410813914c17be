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

/** Ids and tool names are short words: longer ones, or ones with control characters, are no agent's. */
const ID_MAX = 256;
/** Paths (cwd, transcript) are longer, but bounded too. */
const PATH_MAX = 4096;
const CONTROL = /[\u0000-\u001f\u007f]/;

const kindName = (v: unknown): string => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

/** Reads the fields of one event, keeping the first malformed one (the event is refused naming it). */
class FieldReader {
  problem: { field: string; problem: string } | null = null;
  constructor(private readonly b: Record<string, unknown>, private readonly event: string) {}

  malformed(field: string, what: string): null {
    this.problem ??= { field, problem: `the ${this.event} event ${what} (${field})` };
    return null;
  }

  own(field: string, b: Record<string, unknown> = this.b): unknown {
    return Object.hasOwn(b, field) ? b[field] : undefined;
  }

  /**
   * An optional string: absent, null or "" is null (Codex sends a null transcript_path); any
   * other type, or a value past `max` or (for an id) holding control characters, is malformed.
   */
  text(field: string, max: number, id: boolean, b: Record<string, unknown> = this.b): string | null {
    const v = this.own(field, b);
    if (v === undefined || v === null || v === "") return null;
    if (typeof v !== "string") return this.malformed(field, `has a ${kindName(v)} as ${field}, not a string`);
    if (v.length > max) return this.malformed(field, `has a ${field} longer than ${max} characters`);
    if (id && CONTROL.test(v)) return this.malformed(field, `has control characters in ${field}`);
    return v;
  }

  /** The tool input: a JSON object; Copilot CLI may send `toolArgs` as the JSON text of one. */
  input(field: string, jsonText: boolean): Record<string, unknown> {
    const raw = this.own(field);
    if (raw === undefined) return {};
    let v = raw;
    if (jsonText && typeof v === "string") {
      try { v = JSON.parse(v); } catch { this.malformed(field, `has a string as ${field} that is not the JSON text of an object`); return {}; }
    }
    if (typeof v === "object" && v !== null && !Array.isArray(v)) return v as Record<string, unknown>;
    this.malformed(field, `has ${raw === v ? "a" : "the JSON text of a"} ${kindName(v)} as ${field}, not an object`);
    return {};
  }

  /** The agent's description of a tool's failure: a string, or an object with a string message. */
  failure(field: string): string {
    const response = this.own("tool_response");
    const e = this.own(field) ?? (typeof response === "object" && response !== null ? this.own("error", response as Record<string, unknown>) : undefined);
    if (e === undefined || e === null) return "the tool failed";
    if (typeof e === "string") return e;
    if (typeof e === "object" && typeof (e as { message?: unknown }).message === "string") return (e as { message: string }).message;
    this.malformed(field, `has a ${kindName(e)} as ${field}, neither a string nor an object with a message`);
    return "the tool failed";
  }
}

/**
 * @example readEvent("claude-code", "PreToolUse", { session_id: "s1", tool_name: "Bash", tool_input: { command: "ls" }, tool_use_id: "t1" })
 */
export function readEvent(agent: Agent, event: string, body: unknown): ReadResult {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { ok: false, problem: `the ${event} event is not a JSON object`, field: "(body)" };
  const r = new FieldReader(body as Record<string, unknown>, event);
  const camel = agent === "copilot-cli";
  const kind = kindOf(agent, event);
  const f = camel
    ? { session: "sessionId", cwd: "cwd", transcript: "transcriptPath", toolName: "toolName", toolInput: "toolArgs", response: "toolResult", error: "error", prompt: "prompt", subagent: "agentName" }
    : { session: "session_id", cwd: "cwd", transcript: "transcript_path", toolName: "tool_name", toolInput: "tool_input", response: "tool_response", error: "error", prompt: "prompt", subagent: "agent_id" };
  const out: AgentEvent = { agent, event, kind, sessionId: r.text(f.session, ID_MAX, true), cwd: r.text(f.cwd, PATH_MAX, false), transcriptPath: r.text(f.transcript, PATH_MAX, false) };
  if (kind === "tool.before" || kind === "tool.after" || kind === "tool.failed") {
    const name = r.text(f.toolName, ID_MAX, true) ?? r.malformed(f.toolName, "has no tool name") ?? "";
    if (kind === "tool.before" && r.own(f.toolInput) === undefined) r.malformed(f.toolInput, "has no tool input");
    let mcpContext = r.own("mcp_context");
    if (mcpContext === null) mcpContext = undefined;
    else if (mcpContext !== undefined && (typeof mcpContext !== "object" || Array.isArray(mcpContext))) mcpContext = r.malformed("mcp_context", `has a ${kindName(mcpContext)} as mcp_context, not an object`) ?? undefined;
    else if (mcpContext !== undefined) r.text("server_name", ID_MAX, true, mcpContext as Record<string, unknown>);
    out.tool = { name, id: canonicalToolId(agent, name, mcpContext), mcp: mcpParts(agent, name, mcpContext) !== null, input: r.input(f.toolInput, camel), useId: r.text("tool_use_id", ID_MAX, true) };
    if (kind === "tool.after") out.tool.response = r.own(f.response) ?? null;
    if (kind === "tool.failed") out.tool.error = r.failure(f.error);
    const duration = r.own("duration_ms");
    if (typeof duration === "number" && Number.isFinite(duration) && duration >= 0) out.tool.durationMs = duration;
    else if (duration !== undefined && duration !== null) r.malformed("duration_ms", "has a duration_ms that is not a non-negative number");
  }
  if (kind === "prompt") {
    const prompt = r.own(f.prompt);
    if (typeof prompt === "string") out.prompt = prompt;
    else r.malformed(f.prompt, "has no prompt text");
  }
  if (kind === "subtask.start" || kind === "subtask.end") out.subagentId = r.text(f.subagent, ID_MAX, true) ?? r.text("agent_type", ID_MAX, true) ?? "subagent";
  return r.problem ? { ok: false, ...r.problem } : { ok: true, event: out };
}
