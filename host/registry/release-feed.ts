/**
 * The change feed of releases: how a host learns that the active revision in its database
 * changed (an activation or a rollback through any host). One interface for every engine:
 * a periodic read of the active revision, so a host that missed a notification or was down
 * catches up, plus, where the engine has them, notifications that wake the read at once
 * (PostgreSQL's LISTEN/NOTIFY). SQLite has no notifications across processes; its feed only
 * polls, and a read of the active revision is one indexed row, so it polls often.
 */

/** Starts and stops notifications: `start(onNotify)` resolves with the function that stops them. */
export type NotificationSource = (onNotify: () => void) => Promise<() => Promise<void>>;

export interface ReleaseFeedOptions {
  /** The active revision in the database now (0: none). */
  readActive: () => number | Promise<number>;
  /** The periodic check. SQLite: 100 ms (its only signal); with notifications: 1000 ms. */
  intervalMs: number;
  notifications?: NotificationSource;
}

export interface ReleaseFeedHandlers {
  /** The active revision, read at start, after every notification and at every check. */
  onRevision: (revision: number) => void;
  /** A read or the notification source failed; the feed keeps checking. */
  onError: (err: unknown) => void;
}

export interface ReleaseFeed {
  /** Begins watching; resolves with the function that stops it (and waits for a read in flight). */
  watch(handlers: ReleaseFeedHandlers): Promise<() => Promise<void>>;
}

/** A feed over `readActive`, checked every `intervalMs` and whenever a notification arrives. */
export function releaseFeed(options: ReleaseFeedOptions): ReleaseFeed {
  if (!(options.intervalMs > 0)) throw new RangeError(`releaseFeed: intervalMs must be positive, got ${options.intervalMs}`);
  return {
    async watch(handlers) {
      let stopped = false;
      let reading: Promise<void> | undefined;
      let again = false;
      // One read at a time; a notification during a read asks for one more after it, so a
      // burst of activations costs two reads, and the last one sees the latest revision.
      const check = (): void => {
        if (stopped) return;
        if (reading) { again = true; return; }
        reading = (async () => {
          do {
            again = false;
            try {
              const revision = await options.readActive();
              if (!stopped) handlers.onRevision(revision);
            } catch (err) {
              if (!stopped) handlers.onError(err);
            }
          } while (again && !stopped);
        })().finally(() => { reading = undefined; });
      };
      let stopNotifications: (() => Promise<void>) | undefined;
      if (options.notifications) {
        try {
          stopNotifications = await options.notifications(check);
        } catch (err) {
          // The periodic check still delivers every change, only later.
          handlers.onError(err);
        }
      }
      const timer = setInterval(check, options.intervalMs);
      timer.unref();
      check();
      return async () => {
        stopped = true;
        clearInterval(timer);
        await stopNotifications?.().catch(() => undefined);
        await reading;
      };
    },
  };
}

/** SQLite: the active revision is polled; several processes on one database file see each other's activations. */
export const SQLITE_FEED_INTERVAL_MS = 100;
/** With notifications the check only catches what a notification missed. */
export const NOTIFIED_FEED_INTERVAL_MS = 1000;
