/**
 * The per-operation engine: which bindings of which release apply to an operation, in
 * which order, with which carries, under which signal. It builds each operation's stages
 * and composes, in one place, what wraps them (recording, then what the caller adds).
 */
import { afterOrder, matchBindings, type Binding, type MatchTarget } from "../pipeline/bindings.js";
import type { Release } from "../pipeline/release.js";
import { getPoint, pairedBefore, type PointName } from "../pipeline/points.js";
import { chunkOrder } from "../pipeline/mandatory.js";
import type { StageResult } from "../pipeline/run-steps.js";
import type { CallContext } from "./call-types.js";
import { keyReports, type Digester } from "../pipeline/digest.js";
import type { Sandbox } from "../sandbox/main/sandbox.js";
import type { StageGuard } from "../reliability/stage-guard.js";
import type { OperationStore, PayloadStore } from "../records/store.js";
import type { OperationRecord } from "../records/types.js";
import { OperationJournal } from "../records/journal.js";
import { newOperationId } from "./operation-id.js";
import { runChunkStages, runStage } from "./stage.js";
import { streamPlan } from "./stream-rewrite.js";
import { operationSignal } from "./operation-signal.js";
import { recordedStages } from "./recorded-stages.js";
import { composeStages, type StagesWrapper } from "./compose.js";
import { NOTHING, type OperationStages, type StageRunner } from "./stages.js";
import type { HookTable, StagePlan } from "./hook-table.js";
import { skippedByQuarantine } from "../pipeline/skipped-hooks.js";
import type { ResolvedHook } from "./hooks.js";
import { withKeys } from "../objects/with-keys.js";

export interface EngineOptions {
  sandbox: Sandbox;
  hooks: HookTable;
  guard: StageGuard;
  digests: Digester;
  /** The release new operations start on. */
  current: () => Release;
  /** Where operations are recorded, and as whose. Absent: nothing is recorded and calls pay nothing for it. */
  records?: { store: OperationStore; payloads: PayloadStore | undefined; owner: string };
}

export class OperationEngine implements StageRunner {
  /** The release of each operation in flight, so its children run on it. */
  private readonly inFlight = new Map<string, Release>();

  constructor(private readonly options: EngineOptions) {}

  begin(ctx: CallContext, target: MatchTarget, callId?: string, observe?: StagesWrapper): OperationStages {
    return this.open(ctx, target, callId, undefined, observe);
  }

  /** A runner whose operations the caller's wrapper sees from the outside (one boundary call's observation). */
  runner(observe: StagesWrapper): StageRunner {
    return { begin: (ctx, target, callId) => this.open(ctx, target, callId, undefined, observe) };
  }

  /** Stages on the current release for a stored operation that resumes (same id, same idempotency key). */
  resumeStages(record: OperationRecord, ctx: CallContext): OperationStages {
    return this.open(ctx, record.identity.target, record.identity.callId, record, undefined);
  }

  private open(ctx: CallContext, matchTarget: MatchTarget, callId: string | undefined, resuming: OperationRecord | undefined, observe: StagesWrapper | undefined): OperationStages {
    // A child's operations run on the release of the parent operation in flight: a child's chain never differs from what its parent's release allows.
    const release = (!resuming && ctx.parentOperationId !== undefined ? this.inFlight.get(ctx.parentOperationId) : undefined) ?? this.options.current();
    const target = matchable(withKeys(matchTarget, { instanceId: matchTarget.instanceId ?? ctx.instanceId ?? "main" }));
    const stages = this.stagesFor(ctx, release, target, callId, resuming);
    const records = this.options.records;
    if (!records) return composeStages(stages, [observe]);
    const { signal: _signal, deadline: _deadline, ...identityCtx } = ctx;
    const journal = new OperationJournal({
      store: records.store, payloads: records.payloads, digests: this.options.digests, operationId: stages.operationId, owner: records.owner, revision: release.revision,
      identity: { ctx: identityCtx, target, ...(callId !== undefined ? { callId } : {}) },
      codeOf: (bindingId) => {
        const binding = release.bindings.find((b) => b.id === bindingId);
        const h = binding && this.options.hooks.resolve(binding);
        return { hookRef: binding?.hookRef ?? "", codeSha256: h?.kind === "guest" ? h.plugin.module.sha256 : "in-process" };
      },
      ...(resuming ? { resuming } : {}),
    });
    return composeStages(stages, [(s) => recordedStages(s, journal), observe]);
  }

  /** `resuming`: the stored operation a resume continues (same id), on the current release. */
  private stagesFor(ctx: CallContext, release: Release, target: MatchTarget, callId: string | undefined, resuming: OperationRecord | undefined): OperationStages {
    const { sandbox, guard, digests, hooks: table } = this.options;
    const operationId = resuming?.operationId ?? newOperationId();
    this.inFlight.set(operationId, release);
    sandbox.operationsInFlight = this.inFlight.size;
    const { signal, release: releaseSignal } = operationSignal(ctx.signal, ctx.deadline);
    const context = {
      space_id: ctx.spaceId, actor_id: ctx.actorId ?? null, run_id: ctx.runId ?? null, instance_id: ctx.instanceId ?? "main",
      operation_id: operationId, parent_operation_id: ctx.parentOperationId ?? null, call_id: callId ?? null,
      purpose: target.purpose ?? null, published_revision: release.revision, deadline: ctx.deadline ?? null,
    };
    const at = (point: PointName): readonly Binding[] => release.byPoint.get(point) ?? [];
    // The release and target are the operation's own: the stage looked up when the operation opened (to wake a worker) is the one its run takes.
    let lastPoint: PointName | undefined;
    let lastPlan: StagePlan | undefined;
    const planAt = (point: PointName): StagePlan => {
      if (point !== lastPoint || !lastPlan) { lastPoint = point; lastPlan = table.planFor(release, point, target); }
      return lastPlan;
    };
    const hooksAt = (point: PointName): ResolvedHook[] => planAt(point).hooks;
    // A stage's result says which bindings at its point did not run, and why: the plan's
    // (disabled, not matched, cached per release and target) and the quarantined steps among its reports.
    const skipping = (point: PointName, r: StageResult): StageResult => {
      const planned = planAt(point).skipped;
      const quarantined = r.reports.some((x) => x.error !== undefined) ? skippedByQuarantine(point, r.reports) : [];
      if (planned.length === 0 && quarantined.length === 0) return r;
      return withKeys(r, { skipped: quarantined.length === 0 ? planned : [...planned, ...quarantined] });
    };
    type Extra = { carries?: Record<string, unknown>; holds?: readonly string[]; readOnly?: ReadonlySet<string>; progress?: (bindingId: string) => Promise<void> | void };
    const run = (point: PointName, payload: Record<string, unknown>, hooks: ResolvedHook[], extra: Extra = {}): Promise<StageResult> =>
      hooks.length === 0
        ? Promise.resolve({ payload, reports: [], reached: -1, carries: {}, ...(extra.holds ? { holds: [...extra.holds] } : {}) })
        : runStage(sandbox, { point, context, payload, hooks, signal, guard, ...extra }).then((r) => keyReports(r, digests));
    // The hooks of a stage that pairs with the before stage (after, chunk): ordered by the release's mode, unwinding a short-circuit.
    const paired = (point: PointName, before: StageResult): ResolvedHook[] => {
      const beforePoint = pairedBefore(point) ?? point;
      const beforeHooks = before.reports.length > 0 || before.stop ? matchBindings(at(beforePoint), beforePoint, target) : [];
      const unwind = before.stop?.kind === "short_circuit" ? { before: beforeHooks, reached: before.reached + 1 } : undefined;
      const order = afterOrder(matchBindings(at(point), point, target), release.orderMode, unwind);
      return (point === "model.chat.chunk" ? chunkOrder(order) : order).map((b) => table.resolve(b));
    };
    // The after stage's hooks, worked out once when the real call returns (to warm a worker) and used by runAfter.
    let afterHooks: { point: PointName; before: StageResult; hooks: ResolvedHook[] } | undefined;
    const afterStage = (point: PointName, before: StageResult): ResolvedHook[] => {
      if (afterHooks?.point !== point || afterHooks.before !== before) afterHooks = { point, before, hooks: paired(point, before) };
      return afterHooks.hooks;
    };
    // A stage about to run guest hooks: the worker it will go to is woken now, while the call's own work goes on.
    const wakeFor = (hooks: readonly ResolvedHook[]): Promise<undefined> => {
      if (hooks.some((h) => h.kind === "guest")) sandbox.expectTask();
      return NOTHING;
    };
    // Chunk stages pair with the before stage this operation ran (its carries, its short-circuit).
    let lastBefore: StageResult | undefined;
    let chunkHooks: ResolvedHook[] | undefined;
    const chunkStage = () => (chunkHooks ??= paired("model.chat.chunk", lastBefore ?? { payload: {}, reports: [], reached: -1, carries: {} }));
    return {
      operationId,
      revision: release.revision,
      signal,
      run: (point, payload) => run(point, payload, hooksAt(point)).then((r) => { if (getPoint(point).stage === "before") { lastBefore = r; chunkHooks = undefined; } return skipping(point, r); }),
      runAfter: (point, payload, before, options) => run(point, payload, afterStage(point, before), {
        carries: before.carries,
        ...(options?.readOnly && options.readOnly.size > 0 ? { readOnly: options.readOnly } : {}),
        ...(options?.progress ? { progress: options.progress } : {}),
      }).then((r) => skipping(point, r)),
      // A fresh signal: cleanup hooks must run even when the operation was cancelled.
      diagnostic: (point, payload) => {
        const hooks = hooksAt(point);
        return (hooks.length === 0 ? run(point, payload, []) : runStage(sandbox, { point, context, payload, hooks, signal: AbortSignal.timeout(10_000), guard }).then((r) => keyReports(r, digests)))
          .then((r) => skipping(point, r));
      },
      outputMayChange: (point) => hooksAt(point).some((h) => !h.binding.observeOnly),
      streamPlan: (before) => streamPlan(paired("model.chat.chunk", before), paired("model.chat.after", before)),
      chunk: (payload, holds) => run("model.chat.chunk", payload, chunkStage(), { holds, carries: lastBefore?.carries ?? {} }),
      chunks: (payloads, holds) => {
        const hooks = chunkStage();
        if (hooks.length === 0) return Promise.resolve(payloads.map((payload) => ({ payload, reports: [], reached: -1, carries: {}, holds: [...holds] })));
        return runChunkStages(sandbox, { point: "model.chat.chunk", context, payloads, hooks, signal, guard, holds, carries: lastBefore?.carries ?? {} });
      },
      opened: (_operation, before) => wakeFor(hooksAt(before)),
      calling: () => NOTHING,
      called: (after, _real, _afterPayload, before) => wakeFor(afterStage(after, before)),
      // Without a records store nothing keeps an awaiting operation for the request that reports its result.
      awaiting: () => Promise.resolve({ code: "CONFIG_INVALID", message: "a call whose result arrives in a later request needs a records store: createHost({ records })" }),
      closed: () => NOTHING,
      end: () => { releaseSignal(); this.inFlight.delete(operationId); sandbox.operationsInFlight = this.inFlight.size; },
    };
  }
}

/**
 * The target as a match can read it: a field that is not a string (a caller's request not
 * checked yet, whose check comes later and refuses it) matches as absent instead of
 * breaking the cache key or a pattern.
 */
function matchable(target: MatchTarget): MatchTarget {
  const text = (v: unknown): v is string => typeof v === "string";
  if (text(target.spaceId) && (target.modelId === undefined || text(target.modelId)) && (target.toolId === undefined || text(target.toolId)) && (target.purpose === undefined || text(target.purpose)) && (target.instanceId === undefined || text(target.instanceId))) return target;
  const { modelId, toolId, purpose, instanceId, spaceId, ...rest } = target;
  return withKeys(rest, {
    spaceId: text(spaceId) ? spaceId : "",
    ...(text(modelId) ? { modelId } : {}),
    ...(text(toolId) ? { toolId } : {}),
    ...(text(purpose) ? { purpose } : {}),
    ...(text(instanceId) ? { instanceId } : {}),
  }) as MatchTarget;
}

