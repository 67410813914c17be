import { describe, expect, it } from "vitest";
import type { ErrorCode } from "../../host/errors/codes.js";
import { isSluiceError, type ErrorData } from "../../host/errors/sluice-error.js";
import { QuarantineState, resolveQuarantinePolicy } from "../../host/reliability/quarantine.js";

const trap: ErrorData = { code: "GUEST_TRAP", message: "guest trapped" };
const error = (code: string): ErrorData => ({ code: code as ErrorCode, message: code });
const policy = (p = {}) => resolveQuarantinePolicy({ threshold: 3, windowMs: 1_000, ...p });

describe("quarantine state machine", () => {
  it("quarantines a plugin at the threshold of guest faults within the window", () => {
    const q = new QuarantineState(policy());
    expect(q.record("p@1", trap, 0)).toBeUndefined();
    expect(q.record("p@1", trap, 400)).toBeUndefined();
    const entry = q.record("p@1", error("GUEST_TIMEOUT"), 900);
    expect(entry).toEqual({ ref: "p@1", since: 900, until: null, failures: 3, lastError: error("GUEST_TIMEOUT") });
    expect(q.get("p@1")).toEqual(entry);
    expect(q.list()).toEqual([entry]);
  });

  it("forgets faults that slid out of the window", () => {
    const q = new QuarantineState(policy());
    q.record("p@1", trap, 0);
    q.record("p@1", trap, 600);
    expect(q.record("p@1", trap, 1_200)).toBeUndefined(); // the fault at 0 is 1.2 s old
    expect(q.record("p@1", trap, 1_500)).toBeDefined(); // 600, 1200, 1500 lie within 1 s
  });

  it("counts each plugin separately and ignores codes that are not the guest's fault", () => {
    const q = new QuarantineState(policy({ threshold: 2 }));
    q.record("a@1", trap, 0);
    expect(q.record("b@1", trap, 1)).toBeUndefined();
    for (const code of ["QUEUE_FULL", "CALL_CANCELLED", "WORKER_CRASHED", "PATCH_FORBIDDEN", "PLUGIN_QUARANTINED", "EXECUTOR_CLOSED"]) {
      expect(q.record("b@1", error(code), 2)).toBeUndefined();
    }
    expect(q.size).toBe(0);
    for (const code of ["GUEST_MEMORY_LIMIT", "GUEST_STACK_OVERFLOW", "GUEST_ABORTED", "OUTPUT_TOO_LARGE", "OUTPUT_OUT_OF_BOUNDS", "OUTPUT_MALFORMED", "OUTPUT_INVALID"]) {
      const fresh = new QuarantineState(policy({ threshold: 1 }));
      expect(fresh.record("c@1", error(code), 0), code).toBeDefined();
    }
  });

  it("stays quarantined until lifted; a lifted plugin starts again with a clean count", () => {
    const q = new QuarantineState(policy({ threshold: 2 }));
    q.record("p@1", trap, 0);
    q.record("p@1", trap, 1);
    expect(q.expire(1e12)).toEqual([]); // no cooldown: only an operator lifts it
    expect(q.record("p@1", trap, 2)).toBeUndefined(); // already quarantined: not counted again
    expect(q.lift("p@1")).toBe(true);
    expect(q.lift("p@1")).toBe(false);
    expect(q.get("p@1")).toBeUndefined();
    expect(q.record("p@1", trap, 3)).toBeUndefined();
    expect(q.record("p@1", trap, 4)).toBeDefined();
  });

  it("with a cooldown, expire lifts the quarantine when it ends", () => {
    const q = new QuarantineState(policy({ threshold: 1, cooldownMs: 500 }));
    expect(q.record("p@1", trap, 100)?.until).toBe(600);
    expect(q.expire(599)).toEqual([]);
    expect(q.expire(600).map((e) => e.ref)).toEqual(["p@1"]);
    expect(q.get("p@1")).toBeUndefined();
  });

  it("refuses impossible policies with CONFIG_INVALID, naming the option", () => {
    for (const bad of [{ threshold: 0 }, { threshold: 1.5 }, { windowMs: 0 }, { cooldownMs: -1 }]) {
      let err: unknown;
      try { resolveQuarantinePolicy(bad); } catch (e) { err = e; }
      expect(isSluiceError(err, "CONFIG_INVALID")).toBe(true);
      expect((err as Error).message).toContain(Object.keys(bad)[0]);
    }
    expect(resolveQuarantinePolicy()).toEqual({ threshold: 5, windowMs: 60_000, cooldownMs: null });
  });
});
