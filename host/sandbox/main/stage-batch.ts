/**
 * Stages of several operations that waited for a worker together, run as one worker task.
 * If that task fails (a timeout, a dead worker), the stage that caused it gets the error and
 * every other stage runs again on its own: a stage never fails for another operation's guest.
 */
import { clockLimit } from "./clock-limit.js";
import { cancelledByCaller, closedDuringCall } from "../../errors/call-errors.js";
import type { StageResult } from "../../pipeline/run-steps.js";
import type { Lane } from "./lane.js";
import type { CallSpec, StagesTask, WireStageResult } from "../protocol.js";
import { fromWire } from "../protocol.js";
import { NO_PROGRESS, ScheduledTask, type StageStep, type TaskWork, type Watched } from "./scheduled-task.js";

/** Stages of other operations that waited go to a worker together, at most this many. */
export const STAGES_PER_TASK = 16;

/** What a batch needs of the scheduler. */
export interface StageBatchHost {
  readonly closed: boolean;
  readonly kvPath: string | null;
  spec(step: StageStep): CallSpec;
  /** Runs a task alone on `lane` and answers it. */
  start(lane: Lane, t: ScheduledTask): Promise<void>;
  /** Runs a task again, ahead of the queue. */
  admit<T>(t: ScheduledTask<T>, readmitted: boolean): Promise<Watched<T>>;
}

type StageWork = Extract<TaskWork, { kind: "stage" }>;

export async function runStages(host: StageBatchHost, lane: Lane, batch: ScheduledTask<StageResult>[]): Promise<void> {
  const works = batch.map((t) => t.work as StageWork);
  const offsets: number[] = [];
  let n = 0;
  for (const w of works) { offsets.push(n); n += w.steps.length; }
  // One word per stage: the worker takes a stage (0 → 1) before running it, so a caller
  // can withdraw one that has not started (0 → 2) without touching the others. A stage
  // already running is answered CALL_CANCELLED at once and left to finish (within its
  // time limit): stopping it would cost the other operations' stages their worker.
  const claims = new Int32Array(new SharedArrayBuffer(4 * batch.length));
  batch.forEach((t, j) => t.run((reason) => {
    Atomics.compareExchange(claims, j, 0, 2);
    return { ok: false, index: 0, error: cancelledByCaller(reason) };
  }));
  const task: StagesTask = {
    kind: "stages",
    stages: works.map((w) => w.stage),
    claims: claims.buffer as SharedArrayBuffer,
    calls: works.flatMap((w) => w.steps.map((s) => host.spec(s))),
    progress: NO_PROGRESS,
    kvPath: host.kvPath,
  };
  const limits = works.flatMap((w) => w.steps.map((s) => clockLimit(s.module, s.timeoutMs)));
  // The task's running call, told to the stage it belongs to.
  const look = works.some((w) => w.seen) ? (i: number): void => { const j = offsets.findLastIndex((o) => o <= i); works[j]?.seen?.(i - offsets[j]!); } : undefined;
  const whole = new ScheduledTask<(WireStageResult | null)[]>({ kind: "task", task, limits, look });
  void host.start(lane, whole);
  const r = await whole.outcome;
  if (r.ok) {
    batch.forEach((t, j) => {
      const value = r.value[j];
      // null: withdrawn by its caller, already answered.
      if (value) t.settle({ ok: true, value: fromWire(value, works[j]!.stage.payload) });
    });
    return;
  }
  if (host.closed || r.error.code === "EXECUTOR_CLOSED") {
    for (const t of batch) t.settle({ ok: false, index: 0, error: closedDuringCall() });
    return;
  }
  // The stage that caused the failure gets it; every other runs again on its own (those
  // that finished before it lost their results with the worker, and run again too).
  const refusedBeforeRunning = r.error.code === "WORKER_RESTART_LIMITED" || r.error.code === "QUEUE_FULL";
  const culprit = refusedBeforeRunning ? -1 : offsets.findLastIndex((o) => o <= r.index);
  batch.forEach((t, j) => {
    if (t.settled) return;
    if (j === culprit) t.settle({ ok: false, index: Math.max(0, r.index - offsets[j]!), error: r.error });
    else void host.admit(t, true);
  });
}
