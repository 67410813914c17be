/**
 * Waiting for SQLite's write lock without blocking the event loop. better-sqlite3's
 * busy_timeout waits synchronously: when the lock is held by a transaction of this very
 * process that is awaiting something (the registry's transactions are async), a blocking
 * wait could never end. A store whose connection shares a file with such transactions sets
 * busy_timeout 0 and retries here instead: the lock holder runs in between.
 */

export const BUSY_WAIT_MS = 5_000;

export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/** Runs `fn` (synchronous), retrying while the database is busy, for at most `waitMs`; other failures reject at once. */
export function whenFree<T>(fn: () => T, waitMs = BUSY_WAIT_MS): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    if (!isBusy(err)) return Promise.reject(err);
  }
  const until = Date.now() + waitMs;
  return new Promise<T>((resolve, reject) => {
    // Every millisecond at first (the lock holder is usually a checkpoint or a transaction of
    // a few ms: doubling from 1 ms made a 8 ms wait 15 ms), then backing off to 50 ms.
    let tries = 0;
    let delay = 1;
    const attempt = () => {
      try {
        resolve(fn());
      } catch (err) {
        if (!isBusy(err) || Date.now() >= until) { reject(err); return; }
        if (++tries >= 16) delay = Math.min(delay * 2, 50);
        setTimeout(attempt, delay);
      }
    };
    setTimeout(attempt, delay);
  });
}
