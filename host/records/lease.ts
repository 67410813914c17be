/**
 * A host's lease on the operations it runs: renewed every third of its length, so a peer
 * sees the host as live until one lease after its last heartbeat. A renewal that fails is
 * retried at the next tick (the lease outlives two missed ones); closing ends the lease at
 * once, so peers may take over what the host left unfinished.
 */
import type { OperationStore } from "./store.js";

export const DEFAULT_OPERATION_LEASE_MS = 15_000;

export class OwnerLease {
  private readonly timer: NodeJS.Timeout;
  private renewing: Promise<void> = Promise.resolve();

  constructor(private readonly store: OperationStore, readonly owner: string, readonly leaseMs: number) {
    this.timer = setInterval(() => { void this.renew(); }, Math.max(1, Math.floor(leaseMs / 3))).unref();
    void this.renew();
  }

  /** Renews now; resolves when the store has the new expiry (never rejects: a failed renewal is retried at the next tick). */
  renew(): Promise<void> {
    this.renewing = this.renewing.then(() => this.store.heartbeat(this.owner, Date.now() + this.leaseMs)).catch(() => {});
    return this.renewing;
  }

  async end(): Promise<void> {
    clearInterval(this.timer);
    await this.renewing;
    await this.store.retire(this.owner).catch(() => {});
  }
}
