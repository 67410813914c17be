/**
 * The messages between the main thread and a sandbox worker. Plain data only (plus
 * WebAssembly.Module and SharedArrayBuffer, which structured clone shares): both sides
 * import these with `import type`, and errors travel as ErrorData, never as thrown objects.
 */
import type { Outcome } from "../../abi/envelope.js";
import type { ErrorData } from "../errors/sluice-error.js";
import type { StageInput, StageResult } from "../pipeline/run-steps.js";
import type { MessagePort } from "node:worker_threads";
import type { ComponentCode } from "./loader/component/protocol.js";
import type { Reuse } from "./loaded-module.js";
import { withKeys } from "../objects/with-keys.js";

export type { GuestLogLine as LogLine } from "../pipeline/guest-logs.js";
import type { GuestLogLine as LogLine } from "../pipeline/guest-logs.js";

/** How to run one module's guest: built once per module (and kv scope) and sent as is, call after call. */
export interface CallSpec {
  /** Sent only when the worker asked for it (see module-cache.ts); the worker keeps one Module per id. */
  module?: WebAssembly.Module;
  /** Identifies the compiled module (sha256 and memory cap). */
  moduleId: string;
  memoryBytes: number;
  /** The memory the host supplies (the module imports it): declared initial and capped maximum, in pages. */
  memoryPages: { initial: number; maximum: number };
  inputBytes: number;
  outputBytes: number;
  /** The call's fuel budget (limits.fuel): the worker sets the guest's counter to it before instantiating. */
  fuel: number;
  /** The ABI major the module declares: a reply must speak it. */
  abiMajor: number;
  /** The ABI minor the module's marker declares: a reply may not claim a newer one (unchecked when absent). */
  abiMinor?: number;
  /** Key-value scope ("space\u0000binding") when the plugin was granted kv; null otherwise. */
  kvScope: string | null;
  /** Set for a component guest: the worker runs it through component/run-component.ts. */
  component?: ComponentCode;
  /** Set when the worker may reuse an instance of the module (instance-pool.ts). */
  reuse?: Reuse;
}

/** One invocation's input: the encoded request envelope. */
export interface CallRequest {
  bytes: Uint8Array;
  /** Return the reply's bytes and decoded value too (tests, the vectors, debugging). */
  raw: boolean;
}

export interface CallsTask {
  kind: "calls";
  /** The module of each call, and (same index) its request. Kept apart so the specs go out unchanged. */
  calls: CallSpec[];
  requests: CallRequest[];
  /** Int32 [0]: index of the call now running (-1 before, calls.length after); Float64 [1]: its start time, epoch ms (NaN while the worker does host work). */
  progress: SharedArrayBuffer;
  kvPath: string | null;
}

/** A whole stage of guest hooks in one task: the worker runs the pipeline core itself. */
export interface StageTask {
  kind: "stage";
  stage: StageInput;
  /** Chunk stages only: payloads of the chunks after `stage.payload`, run in order in this one task, each starting from the holds the previous one left. */
  more?: Record<string, unknown>[];
  /** One per step: how to run that step's guest (the request is built in the worker). */
  calls: CallSpec[];
  progress: SharedArrayBuffer;
  kvPath: string | null;
}

/**
 * Stages of different operations in one task, sent when every worker was busy: stage k
 * uses the calls from the sum of the earlier stages' step counts on. Results come back in
 * order, one per stage.
 */
export interface StagesTask {
  kind: "stages";
  stages: StageInput[];
  /** Int32 per stage: 0 waiting, 1 taken by the worker, 2 withdrawn by its caller (skipped; its result is null). */
  claims: SharedArrayBuffer;
  calls: CallSpec[];
  progress: SharedArrayBuffer;
  kvPath: string | null;
}

export type Task = CallsTask | StageTask | StagesTask;

/**
 * A stage result as it crosses back: `payload` is null when the stage left the payload it
 * was given untouched (the common case), so a large payload is not copied back.
 */
export type WireStageResult = Omit<StageResult, "payload"> & { payload: Record<string, unknown> | null };

/** Turns a stage result into its wire form (worker side). */
export function toWire(result: StageResult, given: Record<string, unknown>): WireStageResult {
  return result.payload === given ? withKeys(result, { payload: null }) : result;
}

/** Restores a stage result from its wire form (main side). */
export function fromWire(result: WireStageResult, given: Record<string, unknown>): StageResult {
  return result.payload === null ? withKeys(result, { payload: given }) : (result as StageResult);
}

/** `fuel`: what the invocation used (above the budget when it ran out); the same for the same module, input and config on any machine. */
export type CallReport =
  | { ok: true; outcome: Outcome; logs: LogLine[]; droppedLogs: number; durationMs: number; memoryBytes: number; fuel: number; reply?: unknown; replyBytes?: Uint8Array }
  | { ok: false; error: ErrorData; logs: LogLine[]; droppedLogs: number; durationMs: number; memoryBytes: number; fuel: number };

export const PROGRESS_BYTES = 16;
/** Progress index values before the first call starts: posted and not yet taken, */
export const PROGRESS_WAITING = -1;
/** cancelled before the worker took it (the worker skips it), */
export const PROGRESS_CANCELLED = -2;
/** taken by the worker, which is preparing the first call (no guest clock yet). */
export const PROGRESS_TAKEN = -3;
/** A worker's answer to a task it skipped because it was cancelled first. */
export interface SkippedTask { skipped: true }
export const PROGRESS_INDEX = 0;
/** Int32 slot: the Linux thread id of the worker that took the task (0 when unknown), for watch-clock.ts. */
export const PROGRESS_THREAD = 1;
export const PROGRESS_START = 1;

/**
 * The task that turns a Piscina worker into a lane (see lane.ts): it runs until its worker
 * is terminated or `control[LANE_STOP]` is set, taking tasks from `port`.
 */
export interface ServeTask {
  kind: "serve";
  port: MessagePort;
  /** Int32 words at the LANE_* indices. */
  control: SharedArrayBuffer;
  /** How long the worker polls for the next task before it sleeps, in microseconds. */
  spinMicros: number;
}

/** control[LANE_POSTED]: tasks posted so far. */
export const LANE_POSTED = 0;
/** control[LANE_DONE]: tasks answered so far (the reply is on the port before this moves). */
export const LANE_DONE = 1;
/** control[LANE_SLEEPING]: 1 while the worker sleeps in Atomics.wait, so the poster must notify. */
export const LANE_SLEEPING = 2;
/** control[LANE_STOP]: 1 asks the serve loop to return. */
export const LANE_STOP = 3;
/** control[LANE_BUSY_NS]: the worker's time on the last task, in units of 100 ns (for the caller's spin decision). */
export const LANE_BUSY = 4;
export const LANE_BYTES = 32;
/** control[LANE_THREAD]: the serving worker's threadId, written when the loop starts. */
export const LANE_THREAD = 5;
/**
 * control[LANE_CALLER_POLLS]: 1 when the last task's caller polls for its reply. Only then
 * does the worker poll for its next task: a polling caller is a sequential one, whose next
 * task follows at once; otherwise the calling thread is busy, and a polling worker would
 * take a core it needs.
 */
export const LANE_CALLER_POLLS = 6;
/**
 * control[LANE_BELL]: what a sleeping worker waits on. Whoever wakes it moves the word and
 * notifies: a poster whose task it must take, shutdown(), or a caller that knows a task is
 * coming (Lane.warm), after which the worker polls for that task instead of sleeping again.
 * One word for all of them, so no wake is lost between the worker's last look and its wait.
 */
export const LANE_BELL = 7;
