/**
 * Runs one agent event through the host: the point its kind maps to (mapping.ts), with the
 * agent's session as the call context's runId, and turns the hooks' result into a
 * {@link Verdict} (replies.ts puts it in the agent's words).
 */
import type { Host } from "../host.js";
import type { CallContext } from "../engine/call-types.js";
import type { StageResult } from "../pipeline/run-steps.js";
import { instanceOf } from "../boundary/instance.js";
import { AGENT_TABLE } from "./mapping.js";
import type { AgentEvent } from "./read-event.js";
import type { Verdict } from "./replies.js";
import type { Pairing, PairKey } from "./pairing.js";
import type { SplitTools } from "./split-tools.js";
import type { AgentOrigin } from "../boundary/tool.js";
import { contextOf, outputVerdict, reasonOf, stageAnnotations, stageRefusal } from "./output-verdict.js";
import { askedKey, askedOperation, judgeApproved } from "./approved-ask.js";

export interface EventRun {
  verdict: Verdict;
  /** `neutral` for events whose answer says nothing; `refused` for an event that is itself wrong. */
  outcome: Verdict["kind"] | "neutral" | "refused";
  code: string | null;
  operationId: string | null;
}

export interface RunDeps {
  host: Host;
  tools: SplitTools;
  pairing: Pairing;
  now: () => number;
}

/** Failures that come from the hooks' judgement of a tool's output: those block it. */
const HOOK_CODES: ReadonlySet<string> = new Set(["HOOK_BLOCKED", "HOOK_REJECTED", "HOOK_FAILED", "HOOK_EXCEPTION", "PATCH_INVALID", "PATCH_FORBIDDEN", "OUTCOME_NOT_ALLOWED", "DEADLINE_EXCEEDED"]);

/** A pre refused because its key has as many calls awaiting their after event as the pairing holds for one key. */
const callsFull = (e: AgentEvent, operationId: string): EventRun => ({
  verdict: { kind: "deny", reason: `Sluice refused this ${e.event} event (AGENT_CALLS_FULL): too many tool calls of this hooks key await their after event; its output could not be judged` },
  outcome: "refused", code: "AGENT_CALLS_FULL", operationId,
});

const neutral = (code: string | null = null, operationId: string | null = null): EventRun => ({ verdict: { kind: "continue" }, outcome: "neutral", code, operationId });

/** The event's origin as hooks see it (`/agent`): its cwd and transcript path reach only plugins whose read grant names them. */
function originOf(e: AgentEvent): AgentOrigin {
  return { name: e.agent, event: e.event, session_id: e.sessionId, ...(e.cwd !== null ? { cwd: e.cwd } : {}), ...(e.transcriptPath !== null ? { transcript_path: e.transcriptPath } : {}) };
}

function pairKey(keyId: string, e: AgentEvent, inputDigest: string): PairKey {
  const t = e.tool!;
  return { keyId, sessionId: e.sessionId ?? "", toolUseId: t.useId, toolId: t.id, inputDigest };
}

export async function runEvent(deps: RunDeps, e: AgentEvent, ctx: CallContext, keyId: string): Promise<EventRun> {
  const { host } = deps;
  switch (e.kind) {
    case "tool.before": {
      const t = e.tool!;
      // Digested once: a tool's input can be a whole file, and the key, the call id and the change check all read it.
      const inputDigest = host.digestOf(t.input);
      const key = pairKey(keyId, e, inputDigest);
      // A tool-use id names one call: a second pre under it is a replay, or a second hook posting the same event, and runs no hook.
      if (t.useId !== null && !(await deps.pairing.claim(key, deps.now()))) {
        return { verdict: { kind: "deny", reason: `Sluice refused this ${e.event} event (AGENT_EVENT_REPEATED): a ${e.event} with this tool_use_id came before in this session (tool_use_id)` }, outcome: "refused", code: "AGENT_EVENT_REPEATED", operationId: null };
      }
      // The agent's tool has no schema Sluice knows: any object passes the final check.
      const r = await deps.tools.before(ctx, { toolId: t.id, name: t.name, schema: { type: "object" }, arguments: t.input, callId: t.useId ?? `${e.sessionId ?? "session"}:${inputDigest.slice(0, 16)}`, agent: originOf(e) });
      if (!r.ok) {
        const code = String(r.error.code);
        const verdict: Verdict = code === "HOOK_ASKED" ? { kind: "ask", reason: reasonOf(r.error) } : { kind: "deny", reason: reasonOf(r.error) };
        // An agent that asks its user runs the call once approved: its post is still judged (approved-ask.ts), so without room to wait for it the call is denied.
        if (code === "HOOK_ASKED" && AGENT_TABLE[e.agent].abilities.ask && !(await deps.pairing.open(key, askedKey(r.operationId), deps.now()))) return callsFull(e, r.operationId);
        return { verdict, outcome: verdict.kind, code, operationId: r.operationId || null };
      }
      if (r.served) {
        return { verdict: { kind: "deny", reason: `answered by a hook instead of running the tool: ${JSON.stringify(r.served.result).slice(0, 4000)}` }, outcome: "deny", code: null, operationId: r.operationId };
      }
      if (!(await deps.pairing.open(key, r.operationId, deps.now()))) {
        // Its output could not be judged: the call does not run, and its operation ends now.
        await deps.tools.after(r.operationId, { status: "unknown", reason: "too many of this key's tool calls await their after event" });
        return callsFull(e, r.operationId);
      }
      const changed = host.digestOf(r.arguments) !== inputDigest;
      return { verdict: { kind: "continue", ...(changed ? { updatedInput: r.arguments } : {}), ...contextOf(r.annotations) }, outcome: "continue", code: null, operationId: r.operationId };
    }
    case "tool.after":
    case "tool.failed": {
      const t = e.tool!;
      const postDigest = host.digestOf(e.kind === "tool.after" ? t.response : t.error);
      const taken = await deps.pairing.take(pairKey(keyId, e, host.digestOf(t.input)), postDigest, deps.now());
      if (taken.kind !== "found") return neutral(taken.kind === "repeated" ? "AGENT_EVENT_REPEATED" : "OPERATION_NOT_FOUND");
      const asked = askedOperation(taken.operationId);
      if (asked !== null) return e.kind === "tool.after" ? judgeApproved(host, e, ctx, originOf(e)) : neutral(null, asked);
      const r = await deps.tools.after(taken.operationId, e.kind === "tool.after"
        ? { status: "succeeded", result: t.response ?? null, ...(t.durationMs !== undefined ? { durationMs: t.durationMs } : {}) }
        : { status: "failed", error: { code: "OPERATION_FAILED", message: t.error ?? "the tool failed" }, ...(t.durationMs !== undefined ? { durationMs: t.durationMs } : {}) });
      // The operation could not be taken (gone, ended already, held in another process's memory): no hook judged this output.
      if (!r.ok && !HOOK_CODES.has(String(r.error.code)) && !(e.kind === "tool.failed" && r.error.code === "OPERATION_FAILED")) return neutral(String(r.error.code), taken.operationId);
      if (e.kind === "tool.failed") return { verdict: { kind: "continue", ...contextOf(r.annotations) }, outcome: "neutral", code: r.ok ? null : String(r.error.code), operationId: taken.operationId };
      const judged = outputVerdict(e, r.ok ? { view: r.view } : { error: r.error }, r.annotations, (v) => host.digestOf(v));
      return { ...judged, operationId: taken.operationId };
    }
    case "prompt": {
      const stages = host.begin(ctx, { purpose: "action", modelId: e.agent, instance: instanceOf(ctx), spaceId: ctx.spaceId });
      let r: StageResult;
      try {
        r = await stages.run("model.chat.before", { model: e.agent, messages: [{ role: "user", content: e.prompt! }], purpose: "action", agent: originOf(e) });
      } finally {
        stages.end();
      }
      const annotations = stageAnnotations(r);
      const refused = stageRefusal(r);
      if (refused) return { verdict: { kind: "block", reason: reasonOf(refused) }, outcome: "block", code: String(refused.code), operationId: stages.operationId };
      const messages = r.payload.messages as { content: unknown }[];
      if (messages.length !== 1 || messages[0]!.content !== e.prompt) {
        // No agent takes a rewritten prompt: a hook that changed it (a redaction) blocks it, saying so.
        return { verdict: { kind: "block", reason: `a hook changed the prompt and ${e.agent} cannot take a rewritten prompt; send it without what the hook removed` }, outcome: "block", code: null, operationId: stages.operationId };
      }
      return { verdict: { kind: "continue", ...contextOf(annotations) }, outcome: "continue", code: null, operationId: stages.operationId };
    }
    case "run.start":
    case "run.end":
    case "subtask.start":
    case "subtask.end": {
      const runId = e.sessionId ?? "session";
      const payload = e.kind === "run.start" ? { run_id: runId, instance_id: "main" }
        : e.kind === "run.end" ? { run_id: runId, instance_id: "main", status: "succeeded" }
        : e.kind === "subtask.start" ? { run_id: runId, instance_id: e.subagentId!, parent_instance_id: "main" }
        : { run_id: runId, instance_id: e.subagentId!, parent_instance_id: "main", status: "succeeded" };
      // Observed: a lifecycle hook's reject is recorded, the agent is not stopped.
      const r = await host.lifecycle(e.kind, ctx, payload);
      return neutral(r.ok ? null : r.error.code);
    }
    case "observe":
      return neutral();
  }
}
