/** One contract, every quarantine store engine: the first decision stands, lifts and cooldowns remove it. */
import { afterEach, describe, expect, it } from "vitest";
import type { QuarantineEntry } from "../../host/reliability/quarantine.js";
import type { QuarantineStore } from "../../host/reliability/quarantine-store.js";
import { enginesWith } from "../helpers/store-engines.js";

const entry = (ref: string, since: number, until: number | null): QuarantineEntry => ({ ref, since, until, failures: 5, lastError: { code: "GUEST_TRAP", message: "trap" } });
const opened: QuarantineStore[] = [];
afterEach(async () => { for (const s of opened.splice(0)) await s.close(); });

for (const [name, make] of enginesWith("quarantine")) {
  const open = async () => { const s = await make(); opened.push(s); return s; };
  describe(`quarantine store contract: ${name}`, () => {
    it("keeps the first decision for a plugin, lists what is in force, lifts on demand", async () => {
      const s = await open();
      expect(await s.put(entry("a@1.0.0", 10, null))).toEqual(entry("a@1.0.0", 10, null));
      // A second host deciding later gets the first decision back.
      expect(await s.put(entry("a@1.0.0", 20, 99))).toEqual(entry("a@1.0.0", 10, null));
      await s.put(entry("b@1.0.0", 15, 100));
      expect((await s.list(50)).map((e) => e.ref)).toEqual(["a@1.0.0", "b@1.0.0"]);
      expect((await s.list(100)).map((e) => e.ref)).toEqual(["a@1.0.0"]);
      expect(await s.lift("a@1.0.0")).toEqual(entry("a@1.0.0", 10, null));
      expect(await s.lift("a@1.0.0")).toBeUndefined();
    });

    it("expires entries whose cooldown has ended, and only those", async () => {
      const s = await open();
      await s.put(entry("a@1.0.0", 10, 100));
      await s.put(entry("b@1.0.0", 10, null));
      expect(await s.expire(99)).toEqual([]);
      expect((await s.expire(100)).map((e) => e.ref)).toEqual(["a@1.0.0"]);
      expect((await s.list(0)).map((e) => e.ref)).toEqual(["b@1.0.0"]);
    });
  });
}
