/**
 * The release feed on a real PostgreSQL: two pools on one database stand for two hosts.
 * An activation committed through one wakes the other's watcher by NOTIFY, long before its
 * periodic check; a watcher started after activations reads the active revision at once.
 */
import { afterEach, describe, expect, it } from "vitest";
import { openPostgresStores, type PostgresStores } from "../../host/registry/postgres-stores.js";
import { postgresReleaseFeed } from "../../host/registry/postgres-release-feed.js";
import { ReleaseWatcher } from "../../host/registry/release-watcher.js";
import { testDatabaseUrl } from "../helpers/postgres.js";

const closing: (() => Promise<void>)[] = [];
afterEach(async () => { for (const c of closing.splice(0).reverse()) await c(); });

async function stores(url: string): Promise<PostgresStores> {
  const s = await openPostgresStores(url, { max: 2 });
  closing.push(() => s.close());
  return s;
}

/** A watcher over `s` whose "host" only records the revision it switched to. */
async function follower(s: PostgresStores, intervalMs: number): Promise<{ serving: () => number }> {
  let current = { revision: 0 };
  const watcher = await ReleaseWatcher.start({
    feed: postgresReleaseFeed(s.db, () => s.registry.activeRevision(), intervalMs),
    current: () => current,
    prepare: async (revision) => {
      const release = await s.registry.getRelease(revision);
      if (!release) throw new Error(`no release ${revision}`);
      return () => { current = { revision: release.revision }; };
    },
    readActive: () => s.registry.activeRevision(),
  });
  closing.push(() => watcher.close());
  return { serving: () => current.revision };
}

async function publishAndActivate(s: PostgresStores): Promise<number> {
  const release = await s.registry.insertRelease({ order_mode: "staged", bindings: [], based_on: null, note: "" });
  await s.registry.activate(release.revision, "activate", () => {});
  return release.revision;
}

describe("release feed on PostgreSQL", () => {
  it("an activation through one host wakes the other by NOTIFY, well before its periodic check", async () => {
    const url = await testDatabaseUrl("release-feed-notify");
    const [a, b] = [await stores(url), await stores(url)];
    // A periodic check once a minute: only the notification can deliver within the test.
    const host = await follower(b, 60_000);
    for (const expected of [1, 2, 3]) {
      const started = performance.now();
      expect(await publishAndActivate(a)).toBe(expected);
      await expect.poll(host.serving, { timeout: 1000, interval: 5 }).toBe(expected);
      expect(performance.now() - started).toBeLessThan(1000);
    }
    // A rollback is an activation too.
    await a.registry.activate(1, "rollback", () => {});
    await expect.poll(host.serving, { timeout: 1000, interval: 5 }).toBe(1);
  });

  it("a host that was down when releases were activated serves the active one as soon as it starts", async () => {
    const url = await testDatabaseUrl("release-feed-late");
    const a = await stores(url);
    await publishAndActivate(a);
    await publishAndActivate(a);
    const host = await follower(await stores(url), 60_000);
    await expect.poll(host.serving, { timeout: 1000, interval: 5 }).toBe(2);
  });
});
