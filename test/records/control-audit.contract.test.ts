/** One contract, every control audit engine: newest first, exact totals, filters, pages. */
import { afterEach, describe, expect, it } from "vitest";
import { controlEntryId, type ControlAuditEntry, type ControlAuditStore } from "../../host/records/control-audit-store.js";
import { enginesWith } from "../helpers/store-engines.js";

const opened: ControlAuditStore[] = [];
afterEach(async () => { for (const s of opened.splice(0)) await s.close(); });

const entry = (atMs: number, action: ControlAuditEntry["action"], tokenName: string, revision: number | null = null): ControlAuditEntry => ({
  id: controlEntryId(atMs), at: new Date(atMs).toISOString(), action, tokenId: `tok_${tokenName}`, tokenName, role: "deployer",
  target: revision === null ? "b1" : `revision ${revision}`, revision, changes: [{ path: "guard-prompts: enabled", from: true, to: false }],
});

for (const [name, make] of enginesWith("controlAudit")) {
  const open = async () => { const s = await make(); opened.push(s); return s; };
  describe(`control audit contract: ${name}`, () => {
    it("lists entries newest first, as written, with the exact total of the filter", async () => {
      const s = await open();
      const t0 = Date.parse("2026-03-01T00:00:00.000Z");
      const written = [entry(t0, "bind", "ana"), entry(t0 + 1, "publish", "ana", 2), entry(t0 + 1, "disable", "ci", 3), entry(t0 + 5, "rollback", "ana", 2)];
      for (const e of written) await s.append(e);
      const all = await s.list();
      expect(all.total).toBe(4);
      expect(all.items).toEqual([...written].reverse());
      expect((await s.list({ tokenName: "ana" })).total).toBe(3);
      expect((await s.list({ revision: 2 })).items.map((e) => e.action)).toEqual(["rollback", "publish"]);
      expect((await s.list({ action: "disable" })).items[0]!.changes).toEqual([{ path: "guard-prompts: enabled", from: true, to: false }]);
      expect((await s.list({ from: t0 + 1, to: t0 + 5 })).items.map((e) => e.action)).toEqual(["disable", "publish"]);
      const page = await s.list({ limit: 2, offset: 2 });
      expect({ total: page.total, actions: page.items.map((e) => e.action) }).toEqual({ total: 4, actions: ["publish", "bind"] });
    });
  });
}
