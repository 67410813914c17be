/**
 * The guest clock leaves out the time its worker waits for a core (watch-clock.ts), never
 * the time the guest spends blocked: a kv write stuck behind another connection's lock
 * (the store waits up to 2 s for it) ends in GUEST_TIMEOUT at its limit, not at the wall
 * cap of 10 times the limit.
 */
import Database from "better-sqlite3";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../host/sandbox/index.js";
import { fixture } from "../helpers/fixtures.js";
import { request } from "../helpers/requests.js";
import { tempDir } from "../registry/fixtures.js";

const kvPath = path.join(tempDir("sluice-blocked-"), "kv.db");
const sandbox = createSandbox({ workers: 1, spareWorkers: 0, kvPath });
afterAll(() => sandbox.close());

describe("time a guest spends blocked", () => {
  it("counts against its limit: a kv write waiting on a lock ends GUEST_TIMEOUT near 100 ms", async () => {
    const mod = await sandbox.load(fixture("kv-counter"), { capabilities: ["kv"], limits: { timeoutMs: 100 } });
    const scope = { kvScope: { spaceId: "s", ownerId: "b" } };
    expect((await sandbox.invoke(mod, request(), scope)).ok).toBe(true);
    const holder = new Database(kvPath);
    try {
      holder.exec("BEGIN IMMEDIATE");
      holder.prepare("INSERT OR REPLACE INTO kv (scope, key, value) VALUES ('other', x'00', x'00')").run();
      const t0 = performance.now();
      const r = await sandbox.invoke(mod, request(), scope);
      const elapsed = performance.now() - t0;
      expect(r.ok ? "OK" : r.error.code).toBe("GUEST_TIMEOUT");
      // Well before the 1,000 ms wall cap a wait for a core could stretch it to.
      expect(elapsed).toBeLessThan(800);
    } finally {
      holder.exec("ROLLBACK");
      holder.close();
    }
  });
});
