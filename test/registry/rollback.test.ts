import { describe, expect, it } from "vitest";
import type { ActivationReason } from "../../host/registry/records.js";
import { rollbackTarget } from "../../host/registry/rollback.js";

const history = (...steps: [number, ActivationReason][]) => steps.map(([revision, reason], seq) => ({ seq, revision, reason, activated_at: "" }));

describe("rollbackTarget", () => {
  it("is the revision active before the current one", () => {
    expect(rollbackTarget(history([1, "activate"], [2, "activate"]))).toBe(1);
  });

  it("walks back on repeated rollbacks instead of flipping between two revisions", () => {
    expect(rollbackTarget(history([1, "activate"], [2, "activate"], [3, "disable"], [2, "rollback"]))).toBe(1);
  });

  it("has nothing to roll back to with one activation or none", () => {
    expect(rollbackTarget(history([1, "activate"]))).toBeUndefined();
    expect(rollbackTarget([])).toBeUndefined();
  });
});
