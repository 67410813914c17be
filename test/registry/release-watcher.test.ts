/** The release watcher's rules, with a feed driven by hand and a "host" that only records its switches. */
import { afterEach, describe, expect, it } from "vitest";
import { SluiceError } from "../../host/errors/sluice-error.js";
import type { ReleaseFeed, ReleaseFeedHandlers } from "../../host/registry/release-feed.js";
import { ReleaseWatcher, type ReleaseWatcherOptions } from "../../host/registry/release-watcher.js";
import { until } from "../helpers/until.js";

const watchers: ReleaseWatcher[] = [];
afterEach(async () => { for (const w of watchers.splice(0)) await w.close(); });

/** A feed whose revisions are pushed by the test. */
function manualFeed(): { feed: ReleaseFeed; push: (revision: number) => void } {
  let handlers: ReleaseFeedHandlers | undefined;
  return {
    feed: { watch: async (h) => { handlers = h; return async () => { handlers = undefined; }; } },
    push: (revision) => handlers?.onRevision(revision),
  };
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}

async function start(overrides: Partial<ReleaseWatcherOptions> & { feed: ReleaseFeed; active: () => number }) {
  let current = { revision: 1 };
  const applied: number[] = [];
  const watcher = await ReleaseWatcher.start({
    current: () => current,
    prepare: async (revision) => () => { applied.push(revision); current = { revision }; },
    readActive: overrides.active,
    ...overrides,
  });
  watchers.push(watcher);
  return { watcher, applied, setCurrent: (revision: number) => { current = { revision }; }, current: () => current.revision };
}

/** A window for pushes that must change nothing: there is no event to wait on for what does not happen. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("release watcher", () => {
  it("a newer activation during a slow load ends on the newer one and never switches to the older", async () => {
    const { feed, push } = manualFeed();
    let active = 2;
    const gate = deferred();
    const host = await start({
      feed, active: () => active,
      prepare: async (revision) => { if (revision === 2) await gate.promise; return () => { host.applied.push(revision); host.setCurrent(revision); }; },
    });
    push(2);
    await until(() => host.watcher.status().loading_revision === 2);
    expect(host.watcher.status()).toMatchObject({ serving_revision: 1, loading_revision: 2 });
    active = 3;
    push(3);
    gate.resolve();
    await until(() => host.watcher.status().serving_revision === 3);
    expect(host.applied).toEqual([3]);
    expect(host.watcher.status()).toEqual({ serving_revision: 3, loading_revision: null, error: null });
  });

  it("does not undo a switch made by this host while it loaded (a local activation)", async () => {
    const { feed, push } = manualFeed();
    let active = 2;
    const gate = deferred();
    const host = await start({
      feed, active: () => active,
      prepare: async (revision) => { await gate.promise; return () => { host.applied.push(revision); host.setCurrent(revision); }; },
    });
    push(2);
    await until(() => host.watcher.status().loading_revision === 2);
    // The local API activated 4 meanwhile: the host serves it, and the database says so.
    active = 4;
    host.setCurrent(4);
    gate.resolve();
    await until(() => host.watcher.status().loading_revision === null);
    expect(host.applied).toEqual([]);
    expect(host.current()).toBe(4);
  });

  it("reports a revision it cannot load, keeps serving, and tries it again only after retryMs", async () => {
    const { feed, push } = manualFeed();
    let tries = 0;
    const reports: unknown[] = [];
    const host = await start({
      feed, active: () => 2, retryMs: 200, onReport: (r) => reports.push(r),
      prepare: async () => { tries++; throw new SluiceError("MODULE_TOO_LARGE", "module is 19109 bytes; this registry accepts at most 4096"); },
    });
    push(2);
    await until(() => host.watcher.status().error !== null);
    // The failure was recorded by now (the watcher's clock is Date.now).
    const failedBy = Date.now();
    for (let i = 0; i < 5; i++) push(2);
    await settle();
    expect(tries).toBe(1);
    expect(host.watcher.status()).toMatchObject({ serving_revision: 1, error: { revision: 2, code: "MODULE_TOO_LARGE", message: "module is 19109 bytes; this registry accepts at most 4096" } });
    expect(reports).toEqual([{ kind: "load_failed", serving: 1, failure: expect.objectContaining({ revision: 2, code: "MODULE_TOO_LARGE" }) }]);
    // Past retryMs by the watcher's clock, not by a fixed 220 ms timer, whose start (the
    // event loop's time) can lag the failure on a loaded machine.
    expect(await until(() => Date.now() - failedBy > 200)).toBe(true);
    push(2);
    await until(() => tries === 2);
    expect(tries).toBe(2);
  });

  it("an unexpected error is reported as INTERNAL_ERROR without its message", async () => {
    const { feed, push } = manualFeed();
    const host = await start({ feed, active: () => 2, prepare: async () => { throw new Error("secret path /srv/x"); } });
    push(2);
    await until(() => host.watcher.status().error !== null);
    expect(host.watcher.status().error).toMatchObject({ revision: 2, code: "INTERNAL_ERROR" });
    expect(JSON.stringify(host.watcher.status())).not.toContain("secret");
  });
});
