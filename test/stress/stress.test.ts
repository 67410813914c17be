import { describe, expect, it } from "vitest";
import { failedChecks, runStress } from "./run-stress.js";

describe("stress (small: `npm run stress` runs 100,000 calls)", () => {
  it("under load with 1% hostile guests, every call settles, benign results equal the reference and hostile ones fail with their code", async () => {
    const r = await runStress({ calls: 3_000, inFlight: 64, hostileRate: 0.01, warmupCalls: 300, workers: 2, seed: 11 });
    // Memory is checked by the long run only: 3,000 calls are too few for a steady state.
    expect(failedChecks(r, { memory: false })).toEqual([]);
    expect(r.calls).toBe(3_000);
    expect(r.hostile).toBeGreaterThan(5);
    expect(Object.keys(r.hostileCodes).sort()).toEqual(expect.arrayContaining(["GUEST_TRAP"]));
  }, 120_000);
});
