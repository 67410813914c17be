/**
 * Following the database's active revision, so an activation or rollback made through
 * another process on the same database reaches this host: the release watcher switches
 * the host, and a prefetch compiles versions other hosts store ahead of their activation.
 */
import type { Host } from "../host.js";
import { warmLoader } from "../sandbox/main/load-module.js";
import type { PluginCatalogue } from "./plugin-catalogue.js";
import { startPrefetch, type PrefetchReport } from "./plugin-prefetch.js";
import { releaseFeed, SQLITE_FEED_INTERVAL_MS, type ReleaseFeed } from "./release-feed.js";
import { ReleaseWatcher, type ReleaseSyncReport, type ReleaseSyncStatus } from "./release-watcher.js";
import { releaseInput, type Releases } from "./releases.js";
import type { RegistryStore } from "./store.js";

/** What `GET /api/v1/status` says about releases: the database's active revision and what this process serves. */
export interface ReleaseStatus extends ReleaseSyncStatus {
  active_revision: number;
  /** When this process switched to serving_revision (RFC 3339); null before its first release. */
  serving_since: string | null;
}

/** How often a following host looks for plugin versions stored by another host, to compile them ahead of their activation. */
const PREFETCH_INTERVAL_MS = 500;

export class ReleaseFollower {
  private constructor(private readonly watcher: ReleaseWatcher, private readonly stopPrefetch: () => Promise<void>, private readonly releaseLoader: () => void) {}

  static async start(
    parts: { store: RegistryStore; host: Host; catalogue: PluginCatalogue; releases: Releases },
    options: { feed?: ReleaseFeed; retryMs?: number },
    onReport?: (report: ReleaseSyncReport | PrefetchReport) => void,
  ): Promise<ReleaseFollower> {
    const { store, host, catalogue, releases } = parts;
    const readActive = () => store.activeRevision();
    // A new plugin version must compile within the second an activation may take to reach
    // this host: the loader is warmed now and kept, not started cold on that clock.
    const releaseLoader = await warmLoader();
    const stopPrefetch = await startPrefetch({ list: () => store.listPlugins(), load: (record) => catalogue.load(record), intervalMs: PREFETCH_INTERVAL_MS, storedHere: (ref) => catalogue.storedHere.has(ref), ...(onReport ? { onReport } : {}) });
    const watcher = await ReleaseWatcher.start({
      feed: options.feed ?? releaseFeed({ readActive, intervalMs: SQLITE_FEED_INTERVAL_MS }),
      current: () => host.release,
      prepare: async (revision) => {
        const release = await releases.get(revision);
        await catalogue.ensureLoaded(release);
        return () => { host.activate(releaseInput(release)); };
      },
      readActive,
      ...(onReport ? { onReport } : {}),
      ...(options.retryMs !== undefined ? { retryMs: options.retryMs } : {}),
    });
    return new ReleaseFollower(watcher, stopPrefetch, releaseLoader);
  }

  status(): ReleaseSyncStatus {
    return this.watcher.status();
  }

  async close(): Promise<void> {
    await this.watcher.close();
    await this.stopPrefetch();
    this.releaseLoader();
  }
}

/** The active revision in the database beside the one this process serves (and why it does not serve the active one, if it cannot). */
export async function releaseStatus(store: RegistryStore, host: Host, follower: ReleaseFollower | undefined): Promise<ReleaseStatus> {
  const active = await store.activeRevision();
  const sync = follower?.status() ?? { serving_revision: host.release.revision, loading_revision: null, error: null };
  const since = host.releaseSince;
  return { active_revision: active, ...sync, serving_since: since === null ? null : new Date(since).toISOString() };
}
