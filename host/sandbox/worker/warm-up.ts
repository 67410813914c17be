/**
 * Runs a built-in benign guest through the worker's own task handler when a worker
 * starts, both as a call and as a stage, so that a replacement worker's first real call
 * does not also pay for this thread's first parse and compile of the host code on its path,
 * its first instantiation and msgpack use, and its first guest memory of the common shape
 * (measured: a first call on a fresh worker cost about 3 ms more than a warm one without
 * any warm-up, and still about 0.3 ms of host code when only the guest call was warmed).
 */
import { encode } from "../../../abi/codec.js";
import type { StageInput } from "../../pipeline/run-steps.js";
import { DEFAULT_LIMITS, WASM_PAGE } from "../limits.js";
import { PROGRESS_BYTES, PROGRESS_WAITING, type CallsTask, type StageTask, type Task } from "../protocol.js";
import { hostMemory } from "../wasm-binary.js";
import { CONTINUE_GUEST, CONTINUE_GUEST_REUSABLE, CONTINUE_GUEST_REUSE } from "../benign-guest.js";
import { withKeys } from "../../objects/with-keys.js";


export async function warmUp(run: (task: Task) => unknown, rounds = 30): Promise<void> {
  // The default memory limit, so the pool ends up holding memories of the most common shape.
  const prepared = hostMemory(Buffer.from(CONTINUE_GUEST, "base64"), DEFAULT_LIMITS.memoryBytes / WASM_PAGE);
  const reusable = hostMemory(Buffer.from(CONTINUE_GUEST_REUSABLE, "base64"), DEFAULT_LIMITS.memoryBytes / WASM_PAGE);
  if ("refused" in prepared || "refused" in reusable) return;
  const module = new WebAssembly.Module(prepared.bytes as Uint8Array<ArrayBuffer>);
  const payload = { tool_id: "warm-up", name: "warm-up", schema: { type: "object" }, arguments: { text: "x".repeat(512) }, call_id: "c" };
  const spec = { module, moduleId: "sluice:warm-up", memoryBytes: DEFAULT_LIMITS.memoryBytes, memoryPages: { initial: prepared.initialPages, maximum: prepared.maxPages }, inputBytes: 1 << 20, outputBytes: 1 << 20, fuel: DEFAULT_LIMITS.fuel, abiMajor: 1, kvScope: null };
  const stage: StageInput = {
    point: "tool.before",
    context: { space_id: "warm-up", actor_id: null, run_id: null, instance_id: "main", operation_id: "warm-up", parent_operation_id: null, call_id: null, purpose: "action", published_revision: 0, deadline: null },
    payload,
    steps: [{ bindingId: "warm-up", hookRef: "warm-up@0.0.0", policy: "fail-closed", observeOnly: false, config: {} }],
  };
  // Most guests run on reused instances (instance-pool.ts): that path is warmed too.
  const reuseSpec = withKeys(spec, { module: new WebAssembly.Module(reusable.bytes as Uint8Array<ArrayBuffer>), moduleId: "sluice:warm-up-reusable", reuse: CONTINUE_GUEST_REUSE });
  const request = encode({ abi: "1.0", point: "tool.before", context: stage.context, payload, config: {} });
  const waiting = (): SharedArrayBuffer => {
    const progress = new SharedArrayBuffer(PROGRESS_BYTES);
    new Int32Array(progress)[0] = PROGRESS_WAITING;
    return progress;
  };
  for (let i = 0; i < rounds; i++) {
    for (const s of [spec, reuseSpec]) {
      const calls: CallsTask = { kind: "calls", calls: [s], requests: [{ bytes: request, raw: false }], progress: waiting(), kvPath: null };
      const staged: StageTask = { kind: "stage", stage, calls: [s], progress: waiting(), kvPath: null };
      await run(calls);
      await run(staged);
    }
  }
}
