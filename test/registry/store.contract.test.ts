/** One contract, every registry store engine of test/helpers/store-engines.ts. */
import { afterEach, describe, expect, it } from "vitest";
import type { RegistryStore } from "../../host/registry/store.js";
import type { BindingSpec, PluginRecord } from "../../host/registry/records.js";
import { enginesWith } from "../helpers/store-engines.js";

const plugin = (version: string, sha = "a".repeat(64)): PluginRecord => ({
  id: "p", version, sha256: sha, size: 10, manifest: { id: "p", version } as PluginRecord["manifest"], created_at: new Date(0).toISOString(),
});
const binding = (id: string): BindingSpec => ({
  id, hook_ref: "p@1.0.0", point: "tool.before", match: {}, priority: 100, timeout_ms: 1000, failure_policy: "fail-closed", observe_only: false, config: {}, enabled: true, mandatory: false,
});
const release = (note = "") => ({ order_mode: "staged" as const, bindings: [], based_on: null, note });

const opened: RegistryStore[] = [];
afterEach(async () => { for (const s of opened.splice(0)) await s.close(); });

for (const [name, make] of enginesWith("registry")) {
  const open = async () => { const s = await make(); opened.push(s); return s; };
  describe(`registry store contract: ${name}`, () => {
    it("stores a plugin version once: the same again is `exists`, other code is VERSION_CONFLICT", async () => {
      const s = await open();
      expect(await s.insertPlugin(plugin("1.0.0"))).toBe("inserted");
      expect(await s.insertPlugin(plugin("1.0.0"))).toBe("exists");
      await expect(s.insertPlugin(plugin("1.0.0", "b".repeat(64)))).rejects.toMatchObject({ code: "VERSION_CONFLICT", details: { id: "p", version: "1.0.0" } });
      await s.insertPlugin(plugin("1.1.0"));
      expect((await s.listPlugins("p")).map((p) => p.version)).toEqual(["1.0.0", "1.1.0"]);
      expect(await s.getPlugin("p", "9.9.9")).toBeUndefined();
    });

    it("keeps binding ids unique and the draft order, and names a missing binding", async () => {
      const s = await open();
      for (const id of ["a", "b", "c"]) await s.insertBinding(binding(id));
      await expect(s.insertBinding(binding("a"))).rejects.toMatchObject({ code: "BINDING_CONFLICT" });
      expect((await s.reorderBindings(["c"])).map((b) => b.id)).toEqual(["c", "a", "b"]);
      await expect(s.reorderBindings(["zz"])).rejects.toMatchObject({ code: "BINDING_NOT_FOUND" });
      await expect(s.updateBinding(binding("zz"))).rejects.toMatchObject({ code: "BINDING_NOT_FOUND" });
      await expect(s.deleteBinding("zz")).rejects.toMatchObject({ code: "BINDING_NOT_FOUND" });
      expect((await s.updateBinding({ ...binding("a"), priority: 5 })).priority).toBe(5);
      await s.deleteBinding("b");
      expect((await s.listBindings()).map((b) => b.id)).toEqual(["c", "a"]);
      await s.setDraftOrderMode("symmetric");
      expect(await s.draftOrderMode()).toBe("symmetric");
    });

    it("numbers releases 1, 2, 3 and records activations; a refused apply records nothing", async () => {
      const s = await open();
      expect(await s.activeRevision()).toBe(0);
      const revisions = [];
      for (let i = 0; i < 3; i++) revisions.push((await s.insertRelease(release(`r${i}`))).revision);
      expect(revisions).toEqual([1, 2, 3]);
      let applied = 0;
      await s.activate(2, "activate", () => { applied++; });
      await expect(s.activate(3, "activate", async () => { throw new Error("host refused"); })).rejects.toThrow("host refused");
      expect(applied).toBe(1);
      expect(await s.activeRevision()).toBe(2);
      expect((await s.listActivations()).map((a) => a.revision)).toEqual([2]);
      expect((await s.getRelease(3))?.note).toBe("r2");
    });

    it("a transaction is all or nothing, and its reads see its own writes", async () => {
      const s = await open();
      await expect(s.transaction(async (tx) => {
        await tx.insertBinding(binding("a"));
        expect((await tx.listBindings()).map((b) => b.id)).toEqual(["a"]);
        await tx.insertRelease(release());
        throw new Error("changed my mind");
      })).rejects.toThrow("changed my mind");
      expect(await s.listBindings()).toEqual([]);
      expect(await s.listReleases()).toEqual([]);
      expect((await s.insertRelease(release())).revision).toBe(1);
    });

    it("concurrent transactions never interleave a read and the write that depends on it", async () => {
      const s = await open();
      const publish = (i: number) => s.transaction(async (tx) => {
        const latest = (await tx.listReleases()).at(-1)?.revision ?? null;
        await new Promise((r) => setTimeout(r, 1));
        return tx.insertRelease({ ...release(String(i)), based_on: latest });
      });
      const made = await Promise.all(Array.from({ length: 10 }, (_, i) => publish(i)));
      expect(made.map((r) => r.revision).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect((await s.listReleases()).map((r) => r.based_on)).toEqual([null, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });

    it("refuses a call on the store from inside a transaction, and a tx used after its transaction", async () => {
      const s = await open();
      let leaked: Parameters<Parameters<RegistryStore["transaction"]>[0]>[0] | undefined;
      await expect(s.transaction(async (tx) => { leaked = tx; await s.listBindings(); })).rejects.toThrow(/inside a transaction/);
      await expect(leaked!.listBindings()).rejects.toThrow(/after its transaction ended/);
    });
  });
}
