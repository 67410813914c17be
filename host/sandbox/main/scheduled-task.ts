/**
 * One caller's task in the scheduler, from the moment it is scheduled to its answer, as
 * Piscina's TaskInfo is: it holds its signal's abort listener for its whole life (waiting,
 * running, waiting again after its worker died), knows where it is and so what an abort does
 * there, answers its caller once (a later answer, such as the reply of a guest whose caller
 * already went away, is ignored) and removes its listener when it does.
 */
import { cancelledWhileQueued } from "../../errors/call-errors.js";
import type { ErrorData } from "../../errors/sluice-error.js";
import type { StageInput } from "../../pipeline/run-steps.js";
import { PROGRESS_BYTES, type Task } from "../protocol.js";
import type { LoadedModule } from "./load-module.js";
import type { KvScope } from "./loaded-modules.js";

/** Tasks carry their lane's progress words; this placeholder is replaced when a lane takes the task. */
export const NO_PROGRESS = new SharedArrayBuffer(PROGRESS_BYTES);

export type Watched<T> = { ok: true; value: T } | { ok: false; index: number; error: ErrorData };
export type StageStep = { module: LoadedModule; timeoutMs: number; kvScope?: KvScope };
/** Told the index of the stage's step the worker runs, when a look finds it running (see Scheduler.start). */
export type StepSeen = (step: number) => void;

/**
 * What a task asks of a worker: a whole worker task, run alone (calls, or a chunk batch), or
 * one operation's stage, which goes to a worker with the other stages waiting beside it.
 * `look`: told the index of the call running, while the task runs.
 */
export type TaskWork =
  | { kind: "task"; task: Task; limits: number[]; look?: (call: number) => void }
  | { kind: "stage"; stage: StageInput; steps: readonly StageStep[]; seen?: StepSeen };

/**
 * What an abort does where the task runs: stop what can be stopped, and say what the caller
 * is answered (undefined: the work has finished and its answer is on the way).
 */
export type OnCancel = (reason: unknown) => Watched<never> | undefined;

/** Where a task is in its life: `new` (neither queued nor started yet), `waiting` for a worker in the queue, `running` on one (alone or in a batch), or `settled`. */
export type Phase = "new" | "waiting" | "running" | "settled";

export class ScheduledTask<T = unknown> {
  /** Resolves once, with the task's answer. */
  readonly outcome: Promise<Watched<T>>;
  private where: Phase = "new";
  // Typed wider than T so that a queue of tasks of every kind holds ScheduledTask<unknown>: settle() takes only T.
  private answer!: (outcome: Watched<unknown>) => void;
  /** What an abort does now: set by wait() and run(). */
  private onCancel: OnCancel | undefined;
  private readonly listener: (() => void) | undefined;

  constructor(readonly work: TaskWork, readonly signal?: AbortSignal) {
    this.outcome = new Promise<Watched<T>>((resolve) => { this.answer = resolve as (outcome: Watched<unknown>) => void; });
    // An aborted signal fires no more: its task is answered where it would have started.
    if (signal && !signal.aborted) {
      this.listener = () => this.cancel();
      signal.addEventListener("abort", this.listener, { once: true });
    }
  }

  get phase(): Phase {
    return this.where;
  }

  /** True once the caller has cancelled. */
  get cancelled(): boolean {
    return this.signal?.aborted === true;
  }

  get settled(): boolean {
    return this.where === "settled";
  }

  /** Waiting for a worker: an abort takes it out of the queue (`leave`) and answers CALL_CANCELLED. */
  wait(leave: (task: ScheduledTask<T>) => void): void {
    this.where = "waiting";
    this.onCancel = () => { leave(this); return { ok: false, index: 0, error: cancelledWhileQueued() }; };
  }

  /** Handed to a worker: an abort does what `onCancel` says. */
  run(onCancel: OnCancel): void {
    this.where = "running";
    this.onCancel = onCancel;
  }

  /** Answers the caller, the first time only (true then); every later answer is ignored. */
  settle(outcome: Watched<T>): boolean {
    if (this.where === "settled") return false;
    this.where = "settled";
    this.onCancel = undefined;
    if (this.listener) this.signal!.removeEventListener("abort", this.listener);
    this.answer(outcome);
    return true;
  }

  private cancel(): void {
    const outcome = this.onCancel?.(this.signal!.reason);
    if (outcome) this.settle(outcome);
  }
}
