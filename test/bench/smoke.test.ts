/** Runs every bench scenario once with tiny counts, so `npm run bench` cannot rot. No timing assertions. */
import { describe, expect, it } from "vitest";
import { SCENARIOS, SMOKE } from "./scenarios.js";

describe("bench scenarios", () => {
  for (const s of SCENARIOS) {
    it(`scenario ${s.id} runs and reports its targets`, async () => {
      const r = await s.run(SMOKE);
      expect(r.id).toBe(s.id);
      expect(r.targets.length).toBeGreaterThan(0);
      for (const t of r.targets) expect(typeof t.measured).toBe("number");
    }, 60_000);
  }
});
