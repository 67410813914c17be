import { SluiceError } from "../errors/sluice-error.js";
import { validatePayload } from "../pipeline/validators.js";
import { instanceOf } from "./instance.js";
import { stopError } from "../engine/endings.js";
import type { StageRunner } from "../engine/stages.js";
import type { CallContext, HookTrace } from "../engine/call-types.js";
import { withKeys } from "../objects/with-keys.js";

export type LifecyclePoint = "run.start" | "run.end" | "subtask.start" | "subtask.end";

/** Runs a lifecycle point; a reject at run.start / subtask.start comes back as HOOK_REJECTED. */
export async function lifecycle(runner: StageRunner, point: LifecyclePoint, ctx: CallContext, payload: Record<string, unknown>): Promise<{ ok: true; hooks: HookTrace[] } | { ok: false; error: SluiceError; hooks: HookTrace[] }> {
  const valid = validatePayload(point, payload);
  if (!valid.ok) return { ok: false, error: SluiceError.fromData(valid.error), hooks: [] };
  const stages = runner.begin(ctx, withKeys(ctx.purpose ? { purpose: ctx.purpose } : {}, { instance: instanceOf(ctx), spaceId: ctx.spaceId }));
  const r = await stages.run(point, payload);
  stages.end();
  const hooks = r.reports.map((s) => withKeys(s, { point }));
  if (r.failure) return { ok: false, error: SluiceError.fromData(r.failure), hooks };
  if (r.stop?.kind === "reject") {
    const e = stopError(r.stop);
    return { ok: false, error: new SluiceError(e.code, `${point} ${e.message}`, e.details ?? {}), hooks };
  }
  return { ok: true, hooks };
}
