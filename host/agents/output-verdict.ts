/**
 * What the agent is told after its tool ran and the tool.after hooks judged the output: go
 * on, the changed output where the agent takes a replacement, or a block with the reason.
 */
import type { ErrorData } from "../errors/sluice-error.js";
import type { StageResult } from "../pipeline/run-steps.js";
import { stopError } from "../engine/endings.js";
import { AGENT_TABLE, type AgentAbilities } from "./mapping.js";
import type { AgentEvent } from "./read-event.js";
import type { Verdict } from "./replies.js";

export interface Judged {
  verdict: Verdict;
  outcome: Verdict["kind"];
  code: string | null;
}

/** A string annotation `context` from any hook of the stage. */
export function contextOf(annotations: Record<string, unknown>): { context?: string } {
  return typeof annotations.context === "string" && annotations.context !== "" ? { context: annotations.context } : {};
}

/** Every hook's annotations of a stage, later hooks' keys winning. */
export function stageAnnotations(r: StageResult): Record<string, unknown> {
  const annotations: Record<string, unknown> = {};
  for (const s of r.reports) Object.assign(annotations, s.annotations);
  return annotations;
}

/** What refused the stage's payload: a fail-closed hook's failure, or a hook's reject or block (a short_circuit is an answer, not a refusal). */
export function stageRefusal(r: StageResult): ErrorData | undefined {
  return r.failure ?? (r.stop && r.stop.kind !== "short_circuit" ? stopError(r.stop) : undefined);
}

/** The hook's own reason where it gave one (it reaches the model), else the error's message. */
export function reasonOf(error: ErrorData): string {
  const d = error.details ?? {};
  if (typeof d.reason === "string" && d.reason !== "") return typeof d.hookCode === "string" && d.hookCode !== "" && !d.reason.includes(d.hookCode) ? `${d.reason} (${d.hookCode})` : d.reason;
  return `${error.code}: ${error.message}`;
}

/** Whether an agent that replaces MCP tools' output (`replaceOutput`) takes `view` as the replacement. */
function takesReplacement(replaceOutput: AgentAbilities["replaceOutput"], view: unknown): boolean {
  if (replaceOutput === "mcp") return true;
  return replaceOutput === "mcp-object" && typeof view === "object" && view !== null && !Array.isArray(view);
}

/**
 * `judged`: the hooks' failure, or the view they left, which is the tool's response
 * unchanged when its digest (`digestOf`, the host's keyed one) is the response's.
 */
export function outputVerdict(e: AgentEvent, judged: { error: ErrorData } | { view: unknown }, annotations: Record<string, unknown>, digestOf: (value: unknown) => string): Judged {
  const context = contextOf(annotations);
  if ("error" in judged) return { verdict: { kind: "block", reason: reasonOf(judged.error), ...context }, outcome: "block", code: String(judged.error.code) };
  if (digestOf(judged.view) === digestOf(e.tool!.response ?? null)) return { verdict: { kind: "continue", ...context }, outcome: "continue", code: null };
  // The hooks changed what the model may see: replaced where the agent takes it, else the call is blocked with the reason.
  if (e.tool!.mcp && takesReplacement(AGENT_TABLE[e.agent].abilities.replaceOutput, judged.view)) return { verdict: { kind: "replace", output: judged.view, ...context }, outcome: "replace", code: null };
  const shown = typeof judged.view === "string" ? judged.view.slice(0, 4000) : JSON.stringify(judged.view).slice(0, 4000);
  return { verdict: { kind: "block", reason: `a hook changed this tool's output and ${e.agent} cannot show the changed output to the model: ${shown}`, ...context }, outcome: "block", code: null };
}
