/** One contract, every gateway key store engine: rows only, the secret never stored. */
import { afterEach, describe, expect, it } from "vitest";
import type { GatewayKeyRow, GatewayKeyStore } from "../../host/keys/key-store.js";
import { enginesWith } from "../helpers/store-engines.js";

const row = (id: string, spaceId = "team-a"): GatewayKeyRow => ({ id, spaceId, name: null, prefix: "sk-sluice-abcd", createdAt: `2026-01-01T00:00:0${id.length}.000Z`, revokedAt: null, scope: "gateway" });
const opened: GatewayKeyStore[] = [];
afterEach(async () => { for (const s of opened.splice(0)) await s.close(); });

for (const [name, make] of enginesWith("gatewayKeys")) {
  const open = async () => { const s = await make(); opened.push(s); return s; };
  describe(`gateway key store contract: ${name}`, () => {
    it("finds a live key by its hash and by id, lists by space, and revokes once", async () => {
      const s = await open();
      await s.insert(row("gk_1"), "1".repeat(64));
      await s.insert(row("gk_22", "team-b"), "2".repeat(64));
      expect(await s.byHash("1".repeat(64))).toEqual(row("gk_1"));
      expect(await s.byHash("9".repeat(64))).toBeUndefined();
      expect((await s.list()).map((r) => r.id)).toEqual(["gk_1", "gk_22"]);
      expect((await s.list("team-b")).map((r) => r.id)).toEqual(["gk_22"]);
      const revoked = await s.revoke("gk_1", "2026-02-01T00:00:00.000Z");
      expect(revoked).toMatchObject({ id: "gk_1", revokedAt: "2026-02-01T00:00:00.000Z" });
      expect((await s.revoke("gk_1", "2026-03-01T00:00:00.000Z"))!.revokedAt).toBe("2026-02-01T00:00:00.000Z");
      expect(await s.byHash("1".repeat(64))).toBeUndefined();
      expect(await s.byId("gk_1")).toMatchObject({ revokedAt: "2026-02-01T00:00:00.000Z" });
      expect(await s.revoke("gk_nope", "2026-02-01T00:00:00.000Z")).toBeUndefined();
    });

    it("changes its revocation generation when a key is revoked, and not when one is created or looked up", async () => {
      const s = await open();
      const g0 = await s.generation();
      await s.insert(row("gk_1"), "1".repeat(64));
      await s.byHash("1".repeat(64));
      expect(await s.generation()).toBe(g0);
      await s.revoke("gk_1", "2026-02-01T00:00:00.000Z");
      const g1 = await s.generation();
      expect(g1).not.toBe(g0);
      await s.revoke("gk_nope", "2026-02-01T00:00:00.000Z");
      expect(s.generationLeaseMs).toBeGreaterThanOrEqual(0);
    });

    it("never stores two keys with one hash", async () => {
      const s = await open();
      await s.insert(row("gk_1"), "1".repeat(64));
      await expect(s.insert(row("gk_2"), "1".repeat(64))).rejects.toMatchObject({ code: "STORE_UNAVAILABLE" });
      expect((await s.list()).map((r) => r.id)).toEqual(["gk_1"]);
    });
  });
}
