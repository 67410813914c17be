/**
 * A call a hook asked approval for ends `asked`, but an agent that asks its user (Claude
 * Code) runs it once the user approves, and its post event follows. That output is judged
 * like any other: tool.after runs on it in an operation of its own (the asked operation has
 * ended; its before hooks' carries are gone), and the agent gets the block or replacement.
 * The pairing holds the asked operation under a marked id so the post finds it.
 */
import type { Host } from "../host.js";
import type { CallContext } from "../engine/call-types.js";
import type { StageResult } from "../pipeline/run-steps.js";
import { instanceOf } from "../boundary/instance.js";
import { toolAfterPayload, type AgentOrigin } from "../boundary/tool.js";
import { withKeys } from "../objects/with-keys.js";
import type { AgentEvent } from "./read-event.js";
import { outputVerdict, stageAnnotations, stageRefusal, type Judged } from "./output-verdict.js";

const ASKED = "asked:";

/** The id the pairing keeps for an asked call's post. */
export const askedKey = (operationId: string): string => `${ASKED}${operationId}`;

/** The asked operation a paired id names; null for an ordinary open operation. */
export function askedOperation(paired: string): string | null {
  return paired.startsWith(ASKED) ? paired.slice(ASKED.length) : null;
}

/** Runs tool.after on the output of a call the user approved. */
export async function judgeApproved(host: Host, e: AgentEvent, ctx: CallContext, origin: AgentOrigin): Promise<Judged & { operationId: string }> {
  const t = e.tool!;
  const stages = host.begin(ctx, withKeys(ctx.purpose ? { purpose: ctx.purpose } : {}, { toolId: t.id, instance: instanceOf(ctx), spaceId: ctx.spaceId }), t.useId ?? undefined);
  let r: StageResult;
  try {
    r = await stages.run("tool.after", toolAfterPayload({ toolId: t.id, name: t.name, callId: t.useId ?? `${e.sessionId ?? "session"}:approved`, agent: origin }, t.response ?? null, t.durationMs ?? 0, []));
  } finally {
    stages.end();
  }
  const operationId = stages.operationId;
  const annotations = stageAnnotations(r);
  const refused = stageRefusal(r);
  if (refused) return withKeys(outputVerdict(e, { error: refused }, annotations, (v) => host.digestOf(v)), { operationId });
  return withKeys(outputVerdict(e, { view: r.payload.view }, annotations, (v) => host.digestOf(v)), { operationId });
}
