/**
 * Keeps one host serving the database's active release. On a new active revision (from
 * the {@link ReleaseFeed}) it fetches and compiles every module of that revision first,
 * and only then switches the host, in one synchronous step: a host never serves a release
 * half loaded. When the revision cannot be loaded here (an artifact missing, a module this
 * host's limits refuse), the host keeps serving what it served, and says so in its status
 * and through `onReport`; it tries that revision again after `retryMs`, or at once when the
 * active revision changes.
 */
import { isSluiceError } from "../errors/sluice-error.js";
import type { ErrorCode } from "../errors/codes.js";
import type { ReleaseFeed } from "./release-feed.js";

/** Why this host is not serving the active revision. */
export interface ReleaseLoadFailure {
  revision: number;
  code: ErrorCode;
  message: string;
  /** When it last failed (RFC 3339). */
  at: string;
}

export interface ReleaseSyncStatus {
  /** The revision the host serves (0: none). */
  serving_revision: number;
  /** A revision being fetched and compiled now. */
  loading_revision: number | null;
  /** The latest failure to load the active revision, cleared once the host serves it. */
  error: ReleaseLoadFailure | null;
}

export type ReleaseSyncReport =
  | { kind: "switched"; from: number; to: number; loadMs: number }
  | { kind: "load_failed"; failure: ReleaseLoadFailure; serving: number }
  | { kind: "check_failed"; code: ErrorCode };

export interface ReleaseWatcherOptions {
  feed: ReleaseFeed;
  /** The release the host serves now; compared by identity, so a switch made elsewhere (a local activation) is seen. */
  current: () => { readonly revision: number };
  /** Fetches and compiles every module of `revision`; resolves with the switch, which must be synchronous. */
  prepare: (revision: number) => Promise<() => void>;
  /** The active revision, read again after a slow load: the switch happens only if it is still the one. */
  readActive: () => number | Promise<number>;
  onReport?: (report: ReleaseSyncReport) => void;
  /** Default 5000. */
  retryMs?: number;
}

function codeOf(err: unknown): ErrorCode {
  return isSluiceError(err) ? err.code : "INTERNAL_ERROR";
}

export class ReleaseWatcher {
  private target = 0;
  private loading: number | null = null;
  private failure: ReleaseLoadFailure | null = null;
  private failedAt = 0;
  private running: Promise<void> | undefined;
  private stopFeed: (() => Promise<void>) | undefined;
  private closed = false;

  private constructor(private readonly options: ReleaseWatcherOptions) {}

  /** Starts following the feed (the first check runs at once). */
  static async start(options: ReleaseWatcherOptions): Promise<ReleaseWatcher> {
    const watcher = new ReleaseWatcher(options);
    watcher.stopFeed = await options.feed.watch({
      onRevision: (revision) => watcher.offer(revision),
      onError: (err) => options.onReport?.({ kind: "check_failed", code: codeOf(err) }),
    });
    return watcher;
  }

  status(): ReleaseSyncStatus {
    const serving = this.options.current().revision;
    return {
      serving_revision: serving,
      loading_revision: this.loading,
      // A failure is stale once the host serves that revision or a later activation replaced it.
      error: this.failure && this.failure.revision === this.target && serving !== this.target ? this.failure : null,
    };
  }

  /** Stops following the feed and waits for a load in flight. */
  async close(): Promise<void> {
    this.closed = true;
    await this.stopFeed?.();
    await this.running;
  }

  private offer(revision: number): void {
    if (revision === 0 || this.closed) return;
    this.target = revision;
    if (!this.running) this.running = this.follow().finally(() => { this.running = undefined; });
  }

  /** Loads until the host serves the target (which may move while a load runs). */
  private async follow(): Promise<void> {
    while (!this.closed) {
      const target = this.target;
      const before = this.options.current();
      if (before.revision === target) { this.failure = null; return; }
      const retryMs = this.options.retryMs ?? 5000;
      if (this.failure?.revision === target && Date.now() - this.failedAt < retryMs) return;
      this.loading = target;
      const started = performance.now();
      try {
        const apply = await this.options.prepare(target);
        // A local activation while the modules loaded, or a newer active revision: start over.
        const active = await this.options.readActive();
        if (this.closed) return;
        if (this.options.current() !== before || active !== target) { this.target = active === 0 ? this.target : active; continue; }
        apply();
        this.failure = null;
        this.options.onReport?.({ kind: "switched", from: before.revision, to: target, loadMs: Math.round(performance.now() - started) });
      } catch (err) {
        this.failure = { revision: target, code: codeOf(err), message: isSluiceError(err) ? err.message : "the release could not be loaded (an unexpected error; see the log)", at: new Date().toISOString() };
        this.failedAt = Date.now();
        this.options.onReport?.({ kind: "load_failed", failure: this.failure, serving: this.options.current().revision });
        if (this.target === target) return;
      } finally {
        this.loading = null;
      }
    }
  }
}
