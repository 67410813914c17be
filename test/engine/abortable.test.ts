/**
 * `abortable` (engine/run-operation.ts) settles a boundary call when its signal aborts, even if
 * the operation ignores the signal. The operation's own ending must still be observed: when a
 * client disconnected before the upstream was asked, the upstream request starts with an
 * aborted signal and rejects a moment later; unobserved, that rejection ended `sluice serve`
 * (Node's default for an unhandled rejection), seen as 1 run in 8 of
 * test/gateway/descriptor-limit.test.ts.
 */
import { afterEach, describe, expect, it } from "vitest";
import { abortable } from "../../host/engine/endings.js";

const unhandled: unknown[] = [];
const record = (reason: unknown): void => { unhandled.push(reason); };
afterEach(() => { process.off("unhandledRejection", record); unhandled.length = 0; });

/**
 * Resolves after Node has reported this turn's unhandled rejections: it does so once the
 * microtask queue drains, before the event loop's next phase runs (an immediate).
 */
const afterRejectionsReported = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A promise the test rejects when it chooses. */
function pending(): { promise: Promise<never>; fail: (err: Error) => void } {
  let fail!: (err: Error) => void;
  const promise = new Promise<never>((_, reject) => { fail = reject; });
  return { promise, fail };
}

describe("abortable", () => {
  it("rejects with the signal's reason at once when it has already aborted, and the work's later failure is not an unhandled rejection", async () => {
    process.on("unhandledRejection", record);
    const gone = new DOMException("the client disconnected", "AbortError");
    const controller = new AbortController();
    controller.abort(gone);
    const work = pending();
    await expect(abortable(work.promise, controller.signal)).rejects.toBe(gone);
    work.fail(new Error("the upstream request was aborted"));
    await afterRejectionsReported();
    expect(unhandled).toEqual([]);
  });

  it("rejects with the reason when the signal aborts first, and the work's later failure is not an unhandled rejection", async () => {
    process.on("unhandledRejection", record);
    const controller = new AbortController();
    const work = pending();
    const settled = abortable(work.promise, controller.signal);
    controller.abort(new Error("cancelled"));
    await expect(settled).rejects.toThrow("cancelled");
    work.fail(new Error("the upstream request was aborted"));
    await afterRejectionsReported();
    expect(unhandled).toEqual([]);
  });

  it("settles with the work when the signal never aborts", async () => {
    await expect(abortable(Promise.resolve(42), new AbortController().signal)).resolves.toBe(42);
    await expect(abortable(Promise.reject(new Error("failed")), new AbortController().signal)).rejects.toThrow("failed");
  });
});
