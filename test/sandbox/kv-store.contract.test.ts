/** One contract, every key-value store engine (synchronous ones seen through asyncKv). */
import { afterEach, describe, expect, it } from "vitest";
import { KV_LIMITS, KV_STATUS, type KvStore } from "../../host/sandbox/kv/kv-store.js";
import { enginesWith } from "../helpers/store-engines.js";

const bytes = (s: string) => new TextEncoder().encode(s);
const opened: KvStore[] = [];
afterEach(async () => { for (const s of opened.splice(0)) await s.close(); });

for (const [name, make] of enginesWith("kv")) {
  const open = async () => { const s = await make(); opened.push(s); return s; };
  describe(`key-value store contract: ${name}`, () => {
    it("keeps a value per scope and key; scopes never see each other's keys", async () => {
      const s = await open();
      expect(await s.set("space-a\u0000b1", bytes("k"), bytes("1"))).toBe(KV_STATUS.ok);
      expect(await s.set("space-a\u0000b1", bytes("k"), bytes("2"))).toBe(KV_STATUS.ok);
      expect(Buffer.from((await s.get("space-a\u0000b1", bytes("k")))!).toString()).toBe("2");
      expect(await s.get("space-b\u0000b1", bytes("k"))).toBeUndefined();
      expect(await s.delete("space-b\u0000b1", bytes("k"))).toBe(KV_STATUS.notFound);
      expect(await s.delete("space-a\u0000b1", bytes("k"))).toBe(KV_STATUS.ok);
      expect(await s.get("space-a\u0000b1", bytes("k"))).toBeUndefined();
    });

    it("refuses keys and values over the limits, and a new key in a full scope", async () => {
      const s = await open();
      expect(await s.set("s", new Uint8Array(KV_LIMITS.keyBytes + 1), bytes("v"))).toBe(KV_STATUS.tooLarge);
      expect(await s.set("s", bytes("k"), new Uint8Array(KV_LIMITS.valueBytes + 1))).toBe(KV_STATUS.tooLarge);
      for (let i = 0; i < KV_LIMITS.keysPerScope; i++) expect(await s.set("full", bytes(`k${i}`), bytes("v"))).toBe(KV_STATUS.ok);
      expect(await s.set("full", bytes("one-more"), bytes("v"))).toBe(KV_STATUS.quota);
      // An existing key may still change, and another scope is not affected.
      expect(await s.set("full", bytes("k0"), bytes("w"))).toBe(KV_STATUS.ok);
      expect(await s.set("other", bytes("one-more"), bytes("v"))).toBe(KV_STATUS.ok);
    });
  });
}
