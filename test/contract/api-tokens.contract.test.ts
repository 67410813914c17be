/** One contract, every API token store engine: rows only, the secret never stored, one live token per name. */
import { afterEach, describe, expect, it } from "vitest";
import type { ApiTokenRow, ApiTokenStore } from "../../host/keys/api-token-store.js";
import { ApiTokens } from "../../host/keys/api-tokens.js";
import { enginesWith } from "../helpers/store-engines.js";

const row = (id: string, name: string, role: ApiTokenRow["role"] = "viewer"): ApiTokenRow => ({ id, name, role, prefix: "sluice_at_abcd", createdAt: `2026-01-01T00:00:0${id.length}.000Z`, revokedAt: null });
const opened: ApiTokenStore[] = [];
afterEach(async () => { for (const s of opened.splice(0)) await s.close(); });

for (const [name, make] of enginesWith("apiTokens")) {
  const open = async () => { const s = await make(); opened.push(s); return s; };
  describe(`API token store contract: ${name}`, () => {
    it("finds a live token by its hash, lists every token oldest first, and revokes once", async () => {
      const s = await open();
      await s.insert(row("tok_1", "ana", "deployer"), "1".repeat(64));
      await s.insert(row("tok_22", "ci"), "2".repeat(64));
      expect(await s.byHash("1".repeat(64))).toEqual(row("tok_1", "ana", "deployer"));
      expect(await s.byHash("9".repeat(64))).toBeUndefined();
      expect((await s.list()).map((r) => r.id)).toEqual(["tok_1", "tok_22"]);
      expect(await s.revoke("tok_1", "2026-02-01T00:00:00.000Z")).toMatchObject({ id: "tok_1", revokedAt: "2026-02-01T00:00:00.000Z" });
      expect((await s.revoke("tok_1", "2026-03-01T00:00:00.000Z"))!.revokedAt).toBe("2026-02-01T00:00:00.000Z");
      expect(await s.byHash("1".repeat(64))).toBeUndefined();
      expect(await s.revoke("tok_nope", "2026-02-01T00:00:00.000Z")).toBeUndefined();
    });

    it("keeps one live token per name: a second is API_TOKEN_NAME_TAKEN until the first is revoked", async () => {
      const s = await open();
      await s.insert(row("tok_1", "ana"), "1".repeat(64));
      await expect(s.insert(row("tok_2", "ana"), "2".repeat(64))).rejects.toMatchObject({ code: "API_TOKEN_NAME_TAKEN" });
      await s.revoke("tok_1", "2026-02-01T00:00:00.000Z");
      await s.insert(row("tok_3", "ana"), "3".repeat(64));
      expect((await s.list()).map((r) => [r.id, r.revokedAt === null])).toEqual([["tok_1", false], ["tok_3", true]]);
    });

    it("stores only the token's hash: the service verifies the token it created, and a revoked one no more", async () => {
      const tokens = new ApiTokens(await open());
      const { token, record } = await tokens.create({ name: "ops", role: "admin" });
      expect(token.startsWith("sluice_at_")).toBe(true);
      expect(JSON.stringify(await tokens.list())).not.toContain(token.slice(14));
      expect(await tokens.verify(token)).toMatchObject({ id: record.id, name: "ops", role: "admin" });
      await tokens.revoke(record.id);
      expect(await tokens.verify(token)).toBeNull();
      await expect(tokens.create({ name: "admin", role: "viewer" })).rejects.toMatchObject({ code: "API_TOKEN_NAME_TAKEN" });
      await expect(tokens.create({ name: "x", role: "root" })).rejects.toMatchObject({ code: "REQUEST_INVALID" });
    });
  });
}
