/**
 * The release feed on PostgreSQL: every activation commits a NOTIFY on `sluice_release`
 * (postgres-store.ts), which wakes a read of the active revision at once; the periodic
 * check every second, and a read after the listening connection comes back, catch what a
 * notification missed (a host that was down, a dropped connection).
 */
import type { PostgresEngine } from "../storage/postgres.js";
import { NOTIFIED_FEED_INTERVAL_MS, releaseFeed, type ReleaseFeed } from "./release-feed.js";
import { RELEASE_CHANNEL } from "./postgres-store.js";

export function postgresReleaseFeed(db: Pick<PostgresEngine, "listen">, readActive: () => Promise<number>, intervalMs = NOTIFIED_FEED_INTERVAL_MS): ReleaseFeed {
  return releaseFeed({
    readActive,
    intervalMs,
    notifications: (wake) => db.listen(RELEASE_CHANNEL, { onNotify: () => wake(), onReconnect: () => wake() }),
  });
}
