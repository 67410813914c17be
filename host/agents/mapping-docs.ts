/**
 * docs/agents.md's reference of the mapping, rendered from the table (mapping.ts), the tool
 * ids (tool-ids.ts) and the replies themselves (replies.ts): every answer shown is what the
 * door sends. Between the markers below; the rest of the page is prose.
 */
import { AGENTS, type Agent } from "./agents.js";
import { AGENT_TABLE, KIND_POINT, kindOf, type AgentAbilities, type EventKind } from "./mapping.js";
import { reply, refusal, type Verdict } from "./replies.js";
import { CANONICAL_TOOLS } from "./tool-ids.js";

export const DOCS_BEGIN = "<!-- generated from host/agents/mapping.ts: npm run docs:agents -->";
export const DOCS_END = "<!-- end of generated mapping -->";

const code = (v: unknown): string => `\`${typeof v === "string" ? v : JSON.stringify(v)}\``;
const yes = (b: boolean): string => (b ? "yes" : "no");

function eventOf(agent: Agent, kind: EventKind): string | undefined {
  return Object.entries(AGENT_TABLE[agent].events).find(([, k]) => k === kind)?.[0];
}

const KIND_TEXT: Readonly<Record<EventKind, string>> = {
  "tool.before": "`tool.before` (may deny, ask or rewrite the input)",
  "tool.after": "`tool.after` (the tool's response is the real result; may hide or replace the view)",
  "tool.failed": "ends the tool's operation failed: `tool.after` (status failed), `operation.error`",
  prompt: "`model.chat.before`, the prompt as the user message (may block it)",
  "run.start": "`run.start` (observed)",
  "run.end": "`run.end` (observed)",
  "subtask.start": "`subtask.start` (observed)",
  "subtask.end": "`subtask.end` (observed)",
  observe: "none: answered neutrally, recorded",
};

const REPLACE_TEXT: Readonly<Record<AgentAbilities["replaceOutput"], string>> = {
  mcp: "MCP tools (`updatedMCPToolOutput`)",
  "mcp-object": "MCP tools, with a JSON object (`updatedMCPToolOutput`; another view is a block)",
  none: "no",
};

/** Markdown of the table: events, abilities, tool ids and example answers. */
export function renderAgentDocs(): string {
  const out: string[] = [DOCS_BEGIN, "", "### Events and points", "", "| agent | event | point |", "| --- | --- | --- |"];
  for (const agent of AGENTS) {
    for (const [event, kind] of Object.entries(AGENT_TABLE[agent].events)) out.push(`| ${agent} | ${code(event)} | ${KIND_TEXT[kind]} |`);
    for (const [event, instead] of Object.entries(AGENT_TABLE[agent].unserved ?? {})) out.push(`| ${agent} | ${code(event)} | refused, ${kindOf(agent, event) === "tool.before" ? "a deny" : "neutrally"}: a form the door does not read; configure ${code(instead)} |`);
  }
  out.push("", "Any other event of a known agent is answered neutrally (`{}`) and recorded.", "");
  out.push("### What each agent lets a hook change", "", "| agent | ask before a tool | replace a tool's output | block after a tool | added context | block a prompt | tool-use id (pairing key) | hook timeout |", "| --- | --- | --- | --- | --- | --- | --- | --- |");
  for (const agent of AGENTS) {
    const a = AGENT_TABLE[agent].abilities;
    out.push(`| ${agent} | ${a.ask ? "yes" : "no: a deny saying approval is needed"} | ${REPLACE_TEXT[a.replaceOutput]} | ${yes(a.blockAfter)} | ${yes(a.context)} | ${yes(a.blockPrompt)} | ${a.toolUseId ? "yes" : "no: session, tool and input digest, first in first out"} | ${a.timeoutS} s |`);
  }
  out.push("", "### Canonical tool ids", "", "| agent | tool | id |", "| --- | --- | --- |");
  for (const agent of AGENTS) for (const [tool, id] of Object.entries(CANONICAL_TOOLS[agent])) out.push(`| ${agent} | ${code(tool)} | ${code(id)} |`);
  out.push("", "MCP tools are `mcp.<server>.<tool>` (Claude Code and Codex: `mcp__<server>__<tool>`; Gemini CLI: `mcp_context.server_name`); any other tool is `<agent>.<ToolName>`.", "");
  out.push("### Answers, exactly as the door sends them", "");
  const examples: [string, EventKind, Verdict][] = [
    ["deny before a tool", "tool.before", { kind: "deny", reason: "shell-guard denied this command (rule recursive_delete): ..." }],
    ["ask before a tool", "tool.before", { kind: "ask", reason: "needs review" }],
    ["rewritten input", "tool.before", { kind: "continue", updatedInput: { command: "ls -la" } }],
    ["added context", "tool.before", { kind: "continue", context: "checked by shell-guard" }],
    ["replaced output after a tool", "tool.after", { kind: "replace", output: { token: "[secret:github_token]" } }],
    ["block after a tool", "tool.after", { kind: "block", reason: "a hook changed this tool's output ..." }],
    ["block a prompt", "prompt", { kind: "block", reason: "secret-redact: the prompt holds 1 secret(s) ..." }],
  ];
  out.push(`| answer | ${AGENTS.join(" | ")} |`, `| --- | ${AGENTS.map(() => "---").join(" | ")} |`);
  for (const [name, kind, verdict] of examples) {
    out.push(`| ${name} | ${AGENTS.map((agent) => {
      const event = eventOf(agent, kind);
      if (verdict.kind === "replace" && AGENT_TABLE[agent].abilities.replaceOutput === "none") return "never: a block with the changed view";
      return event === undefined ? "no such event" : code(reply(agent, event, kind, verdict));
    }).join(" | ")} |`);
  }
  out.push(`| refused event before a tool | ${AGENTS.map((agent) => code(refusal(agent, eventOf(agent, "tool.before")!, "tool.before", "Sluice refused this ... event (GATEWAY_KEY_INVALID): ..."))).join(" | ")} |`);
  out.push("", `Points: ${[...new Set(Object.values(KIND_POINT).filter((p) => p !== null))].map((p) => code(p)).join(", ")}.`, "", DOCS_END);
  return out.join("\n");
}

/** `text` (docs/agents.md) with its generated part replaced by the current rendering. */
export function withAgentDocs(text: string): string {
  const begin = text.indexOf(DOCS_BEGIN);
  const end = text.indexOf(DOCS_END);
  if (begin < 0 || end < begin) throw new Error(`docs/agents.md lacks the markers ${DOCS_BEGIN} ... ${DOCS_END}`);
  return text.slice(0, begin) + renderAgentDocs() + text.slice(end + DOCS_END.length);
}
