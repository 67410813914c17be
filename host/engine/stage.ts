/**
 * Runs one stage at a boundary: consecutive guest hooks go to a worker as one task (one
 * thread hop), in-process hooks run here, and both go through the same core (run-steps).
 */
import { cancelledInProcessHook } from "../errors/call-errors.js";
import { neverAborts } from "./operation-signal.js";
import { ABI_VERSION, ABI_VERSION_STRING } from "../../abi/version.js";
import { parseReply, type Outcome } from "../../abi/envelope.js";
import { encode } from "../../abi/codec.js";
import type { ErrorData } from "../errors/sluice-error.js";
import type { Sandbox } from "../sandbox/main/sandbox.js";
import type { StepSeen } from "../sandbox/main/scheduled-task.js";
import { effectiveFailurePolicy } from "../pipeline/failure-policy.js";
import type { ResolvedHook } from "./hooks.js";
import { joinRecheck, recheckOf } from "../pipeline/mandatory.js";
import { getPoint, type PointName } from "../pipeline/points.js";
import { withheldFields } from "../pipeline/read-view.js";
import { runSteps, type InvokeReport, type StageInput, type StageResult, type StepSpec } from "../pipeline/run-steps.js";
import { withKeys } from "../objects/with-keys.js";
import type { StageGuard } from "../reliability/stage-guard.js";

export interface StageRun {
  point: PointName;
  context: StageInput["context"];
  payload: Record<string, unknown>;
  hooks: readonly ResolvedHook[];
  /** carry values from the before stage, by pair (extension). */
  carries?: Record<string, unknown>;
  holds?: readonly string[];
  /** After bindings that judge an already streamed answer read-only (engine/stream-rewrite.ts). */
  readOnly?: ReadonlySet<string>;
  signal: AbortSignal;
  /** Keeps quarantined plugins from running and learns from each guest step's report (host/reliability). */
  guard?: StageGuard;
  /**
   * Told the binding in progress: before the stage's first hook runs (a promise it answers
   * is awaited first), before each in-process hook, and for a later guest hook of a group
   * when a look finds the worker on it (every STEP_LOOK_MS): a group of guest hooks stays
   * one worker task, so a hook that ends sooner is never named.
   */
  progress?: (bindingId: string) => Promise<void> | void;
  /**
   * The space whose key-value data the guests use; default the context's space. A dry run
   * gives a fresh one, so trying a plugin never reads or writes a tenant's data.
   */
  kvSpace?: string;
}


/** Steps without a carry depend only on the hook and the point: built once (they are never modified). */
const plainSteps = new WeakMap<ResolvedHook, Map<PointName, StepSpec>>();

function stepOf(point: PointName, h: ResolvedHook, carries: Record<string, unknown> | undefined, readOnly?: ReadonlySet<string>): StepSpec {
  if (readOnly?.has(h.binding.id)) return withKeys(buildStep(point, h, carries), { streamed: true });
  if (carries && h.binding.pair in carries) return buildStep(point, h, carries);
  let byPoint = plainSteps.get(h);
  if (!byPoint) plainSteps.set(h, (byPoint = new Map()));
  let step = byPoint.get(point);
  if (!step) byPoint.set(point, (step = buildStep(point, h, undefined)));
  return step;
}

function buildStep(point: PointName, h: ResolvedHook, carries: Record<string, unknown> | undefined): StepSpec {
  const b = h.binding;
  const grant = h.kind === "guest" ? h.plugin.grants[point] : undefined;
  // In-process hooks are the service's own code; only guests are held to the restricted fields.
  const withheld = h.kind === "guest" ? withheldFields(getPoint(point).restricted, grant?.read) : undefined;
  return {
    bindingId: b.id,
    hookRef: b.hookRef,
    pair: b.pair,
    policy: effectiveFailurePolicy(point, b),
    observeOnly: b.observeOnly,
    config: b.config,
    ...(grant?.read ? { read: grant.read } : {}),
    ...(withheld ? { withheld } : {}),
    ...(grant?.write ? { write: grant.write } : {}),
    ...(carries && b.pair in carries ? { carry: carries[b.pair] } : {}),
    ...(h.kind === "guest" && h.plugin.module.abi.major === ABI_VERSION.major && h.plugin.module.abi.minor < ABI_VERSION.minor ? { abiMinor: h.plugin.module.abi.minor } : {}),
  };
}

/**
 * Runs the stage; the hooks' order is the caller's (see matchBindings / afterOrder). When a
 * hook changed the payload after a mandatory binding ran, that binding runs again on the
 * final payload and has the last word (pipeline/mandatory.ts).
 */
export async function runStage(sandbox: Sandbox, run: StageRun): Promise<StageResult> {
  const first = await runOrdered(sandbox, run);
  const again = isChunk(run) ? [] : recheckOf(run.hooks, first);
  if (again.length === 0) return first;
  return joinRecheck(first, await runOrdered(sandbox, withKeys(run, { payload: first.payload, hooks: again })));
}

async function runOrdered(sandbox: Sandbox, run: StageRun): Promise<StageResult> {
  let payload = run.payload;
  const all: StageResult = { payload, reports: [], reached: -1, carries: {}, ...(run.holds || isChunk(run) ? { holds: [] } : {}) };
  for (let start = 0; start < run.hooks.length;) {
    const kind = run.hooks[start]!.kind;
    let end = start + 1;
    // In-process hooks run here, one at a time when progress is told: no thread hop to save.
    while (end < run.hooks.length && run.hooks[end]!.kind === kind && !(run.progress && kind !== "guest")) end++;
    if (run.progress) await run.progress(run.hooks[start]!.binding.id);
    const group = run.hooks.slice(start, end);
    const seen = run.progress && group.length > 1 ? namer(group, run.progress) : undefined;
    const input: StageInput = {
      point: run.point,
      context: run.context,
      payload,
      steps: group.map((h) => stepOf(run.point, h, run.carries, run.readOnly)),
      ...(all.holds ? { holds: (run.holds ?? []).slice(start, end) } : {}),
    };
    const part = kind === "guest" ? await runGuests(sandbox, input, group, run.signal, run.guard, run.kvSpace, seen) : await runInProcess(input, group, run.signal);
    payload = part.payload;
    all.payload = payload;
    all.reports.push(...part.reports);
    all.reached = start + part.reached;
    Object.assign(all.carries, part.carries);
    if (all.holds) all.holds.push(...(part.holds ?? group.map(() => "")));
    if (part.stop) return withKeys(all, { stop: part.stop });
    if (part.failure) return withKeys(all, { failure: part.failure });
    start = end;
  }
  return all;
}

/** Names each later hook of a group once, when the worker is seen on it (the first was named before the task). */
function namer(group: readonly ResolvedHook[], progress: NonNullable<StageRun["progress"]>): StepSeen {
  let named = 0;
  return (step) => {
    if (step <= named) return;
    named = step;
    // Not awaited: the hook already runs. The recording writes its checkpoint on its own time.
    void Promise.resolve(progress(group[step]!.binding.id)).catch(() => undefined);
  };
}

/**
 * An after or chunk stage comes once the operation's real call was made (an error or final
 * stage, once it is under way): a full sandbox queue makes it wait rather than refuse it (the
 * call cannot be undone, and a refused chunk stage would cut its stream). Before stages and a
 * run's lifecycle points start work, so a full queue refuses them with QUEUE_FULL (503,
 * retry-after): nothing was called yet, and the client retries.
 */
function followsTheCall(point: PointName): boolean {
  const stage = getPoint(point).stage;
  return stage !== "before" && stage !== "lifecycle";
}

function isChunk(run: StageRun): boolean {
  return run.point === "model.chat.chunk";
}

/** Steps that must not run now: quarantined plugins, and plugins that used up their worker restarts. */
function prefailed(sandbox: Sandbox, group: readonly ResolvedHook[], guard: StageGuard | undefined): Record<number, ErrorData> {
  const failed: Record<number, ErrorData> = {};
  group.forEach((h, i) => {
    const blocked = guard?.blocked(h.binding.hookRef);
    if (blocked) failed[i] = blocked;
    else if (h.kind === "guest" && sandbox.restartLimited(h.plugin.module)) {
      failed[i] = { code: "WORKER_RESTART_LIMITED", message: `${h.binding.hookRef} caused too many worker restarts recently; skipped until the restart budget refills`, details: { hookRef: h.binding.hookRef } };
    }
  });
  return failed;
}

function guestSteps(input: StageInput, group: readonly ResolvedHook[], kvSpace?: string) {
  return group.map((h) => {
    const plugin = h.kind === "guest" ? h.plugin : undefined!;
    return { module: plugin.module, timeoutMs: h.binding.timeoutMs, kvScope: { spaceId: kvSpace ?? input.context.space_id ?? "", ownerId: plugin.id } };
  });
}

/** Steps of quarantined or restart-limited plugins are pre-failed (their policy decides); every report is shown to the guard. */
async function runGuests(sandbox: Sandbox, input: StageInput, group: readonly ResolvedHook[], signal: AbortSignal, guard?: StageGuard, kvSpace?: string, seen?: StepSeen): Promise<StageResult> {
  const failed = prefailed(sandbox, group, guard);
  // Nothing left to run: the failure policies decide here, without a thread hop.
  if (Object.keys(failed).length === group.length) return runSteps(withKeys(input, { failed }), () => { throw new Error("unreachable: every step was pre-failed"); });
  const result = await runGuestTasks(sandbox, input, group, signal, failed, kvSpace, seen);
  if (guard) for (const report of result.reports) guard.observe(report);
  return result;
}

/**
 * Runs the chunk stage for chunks that are all waiting already. When every hook is a
 * guest that may run, the whole batch is one worker task; otherwise, or when that task
 * is lost to a timeout or a dead worker, chunk by chunk (the stage's own retry rules).
 * Holds pass from each chunk to the next; the batch stops at a block or a failure.
 */
export async function runChunkStages(sandbox: Sandbox, run: Omit<StageRun, "payload"> & { payloads: readonly Record<string, unknown>[] }): Promise<StageResult[]> {
  const { payloads, hooks } = run;
  const holds0 = run.holds ?? hooks.map(() => "");
  if (payloads.length > 1 && hooks.length > 0 && hooks.every((h) => h.kind === "guest") && Object.keys(prefailed(sandbox, hooks, run.guard)).length === 0) {
    const input: StageInput = { point: run.point, context: run.context, payload: payloads[0]!, steps: hooks.map((h) => stepOf(run.point, h, run.carries)), holds: holds0 };
    const r = await sandbox.runChunks(input, payloads.slice(1), guestSteps(input, hooks), neverAborts(run.signal) ? undefined : run.signal);
    if (r.ok) {
      if (run.guard) for (const result of r.value) for (const report of result.reports) run.guard.observe(report);
      return r.value;
    }
    if (r.error.code === "CALL_CANCELLED" || r.error.code === "QUEUE_FULL" || r.error.code === "EXECUTOR_CLOSED") {
      return [{ payload: payloads[0]!, reports: [], reached: -1, carries: {}, failure: r.error }];
    }
  }
  const results: StageResult[] = [];
  let holds: readonly string[] = holds0;
  for (const payload of payloads) {
    const r = await runStage(sandbox, withKeys(run, { payload, holds }));
    results.push(r);
    if (r.stop || r.failure) break;
    holds = r.holds ?? holds;
  }
  return results;
}

/**
 * A step that times out (or whose worker dies) takes the whole task with it. The stage is
 * then run again with that step marked failed, so its failure policy decides: fail-closed
 * ends the stage, fail-open skips it. Steps before it run again; hooks are functions of
 * their input, and only a rare failure pays this cost.
 */
async function runGuestTasks(sandbox: Sandbox, input: StageInput, group: readonly ResolvedHook[], signal: AbortSignal, failed: Record<number, ErrorData>, kvSpace?: string, seen?: StepSeen): Promise<StageResult> {
  const steps = guestSteps(input, group, kvSpace);
  for (;;) {
    const r = await sandbox.runStage(withKeys(input, { failed }), steps, neverAborts(signal) ? undefined : signal, seen, followsTheCall(input.point));
    if (r.ok) return r.value;
    if (r.error.code === "CALL_CANCELLED" || r.error.code === "QUEUE_FULL" || r.error.code === "EXECUTOR_CLOSED" || failed[r.index]) {
      return { payload: input.payload, reports: [], reached: -1, carries: {}, failure: r.error };
    }
    failed[r.index] = r.error;
  }
}

async function runInProcess(input: StageInput, group: readonly ResolvedHook[], signal: AbortSignal): Promise<StageResult> {
  return runSteps(input, async (i, request): Promise<InvokeReport> => {
    const h = group[i]!;
    if (h.kind !== "in-process") throw new Error("unreachable: group mixes hook kinds");
    const t0 = performance.now();
    const took = () => performance.now() - t0;
    // One controller for "cancelled or timed out", wired by hand: on Node 20, AbortSignal.any()
    // leaked its signals (~3 KB per hook call, found by test/stress).
    const stop = new AbortController();
    const both = stop.signal;
    const onStop = (): void => stop.abort();
    signal.addEventListener("abort", onStop, { once: true });
    const timer = setTimeout(onStop, h.binding.timeoutMs);
    if (signal.aborted) onStop();
    try {
      // Already stopped (cancelled before this hook started): an abort listener would never fire.
      const stopped = new Promise<never>((_, reject) => { if (both.aborted) reject(both); else both.addEventListener("abort", () => reject(both), { once: true }); });
      const raw = await Promise.race([Promise.resolve().then(() => h.hook(structuredClone(request), { signal: both })), stopped]);
      // The same reply checks a guest's outcome gets, so trusted hooks cannot bend the rules either.
      const parsed = parseReply(toReply(raw), (v) => encode(v).byteLength);
      if (parsed.ok) return { ok: true, outcome: parsed.outcome, durationMs: took() };
      return parsed.code
        ? { ok: false, error: { code: parsed.code, message: `in-process hook returned an invalid outcome: ${parsed.message}`, ...(parsed.details ? { details: parsed.details } : {}) }, durationMs: took() }
        : { ok: false, error: { code: "HOOK_EXCEPTION", message: `in-process hook returned an invalid outcome: ${parsed.message}` }, durationMs: took() };
    } catch (err) {
      if (err === both) {
        return signal.aborted
          ? { ok: false, error: cancelledInProcessHook(), durationMs: took() }
          : { ok: false, error: { code: "GUEST_TIMEOUT", message: `in-process hook ran past its ${h.binding.timeoutMs} ms limit`, details: { limitMs: h.binding.timeoutMs } }, durationMs: took() };
      }
      return { ok: false, error: { code: "HOOK_EXCEPTION", message: `in-process hook threw: ${(err as Error)?.message ?? String(err)}` }, durationMs: took() };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener("abort", onStop);
    }
  });
}

function toReply(outcome: Outcome | unknown): unknown {
  if (typeof outcome !== "object" || outcome === null) return outcome;
  const { kind, ...rest } = outcome as Outcome;
  return { abi: ABI_VERSION_STRING, outcome: kind, ...rest };
}
