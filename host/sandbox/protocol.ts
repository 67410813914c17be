/**
 * The messages between the main thread and a sandbox worker. Plain data only (plus
 * WebAssembly.Module and SharedArrayBuffer, which structured clone shares): both sides
 * import these with `import type`, and errors travel as ErrorData, never as thrown objects.
 */
import type { Outcome } from "../../abi/envelope.js";
import type { ErrorData } from "../errors/sluice-error.js";
import type { StageInput } from "../pipeline/run-steps.js";
import type { ComponentCode } from "./component/protocol.js";

export interface LogLine { level: number; message: string }

/** One guest invocation inside a task. */
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
  /** Key-value scope ("space\u0000binding") when the plugin was granted kv; null otherwise. */
  kvScope: string | null;
  request: Uint8Array;
  /** Set for a component guest: the worker runs it through component/run-component.ts. */
  component?: ComponentCode;
  /** Return the reply's bytes and decoded value too (tests, the vectors, debugging). */
  raw?: boolean;
}

export interface CallsTask {
  kind: "calls";
  calls: CallSpec[];
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
  calls: Omit<CallSpec, "request" | "raw">[];
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
  calls: Omit<CallSpec, "request" | "raw">[];
  progress: SharedArrayBuffer;
  kvPath: string | null;
}

export type Task = CallsTask | StageTask | StagesTask;

export type CallReport =
  | { ok: true; outcome: Outcome; logs: LogLine[]; droppedLogs: number; durationMs: number; memoryBytes: number; reply?: unknown; replyBytes?: Uint8Array }
  | { ok: false; error: ErrorData; logs: LogLine[]; droppedLogs: number; durationMs: number; memoryBytes: number };

export const PROGRESS_BYTES = 16;
export const PROGRESS_INDEX = 0;
export const PROGRESS_START = 1;
