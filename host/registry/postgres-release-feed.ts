/**
 * The release feed on PostgreSQL: every activation commits a NOTIFY on `sluice_release`
 * (postgres-store.ts), which wakes a read of the active revision at once; the periodic
 * check every second, and a read after the listening connection comes back, catch what a
 * notification missed (a host that was down, a dropped connection).
 */
import type { PostgresEngine } from "../storage/postgres.js";
import { NOTIFIED_FEED_INTERVAL_MS, releaseFeed, type ReleaseFeed } from "./release-feed.js";
import { watchReleases } from "./postgres-store.js";

export function postgresReleaseFeed(db: PostgresEngine, readActive: () => Promise<number>, intervalMs = NOTIFIED_FEED_INTERVAL_MS): ReleaseFeed {
  return releaseFeed({ readActive, intervalMs, notifications: (wake) => watchReleases(db, wake) });
}
