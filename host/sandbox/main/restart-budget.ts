/**
 * Terminating a worker (a guest ran past its time, or its caller cancelled) costs a
 * replacement thread, about 50 ms of CPU. A plugin that does it on every call could keep
 * the pool busy booting threads. This token bucket allows bursts of restarts, and when it
 * runs dry, refuses calls to the modules that caused the recent restarts, so other plugins
 * keep their workers.
 */
export interface RestartBudgetOptions {
  /** Restarts allowed at once. Default: 8 × workers. */
  burst: number;
  /** Restarts regained per second. Default: 2 × workers. */
  perSecond: number;
  /** How long a module that caused a restart counts as an offender. Default 10 s. */
  offenderMs: number;
}

export class RestartBudget {
  private tokens: number;
  private last: number;
  private readonly offenders = new Map<string, number>();

  constructor(private readonly options: RestartBudgetOptions, private readonly now: () => number = () => performance.now()) {
    this.tokens = options.burst;
    this.last = now();
  }

  private refill(): void {
    const t = this.now();
    this.tokens = Math.min(this.options.burst, this.tokens + ((t - this.last) / 1000) * this.options.perSecond);
    this.last = t;
  }

  /** Records a worker restart caused by `moduleId`. */
  spend(moduleId: string): void {
    this.refill();
    this.tokens -= 1;
    this.offenders.set(moduleId, this.now());
  }

  /** True while restarts are used up: only then can a call be refused (so callers skip building the list of ids). */
  exhausted(): boolean {
    this.refill();
    return this.tokens < 1;
  }

  /** The first of `moduleIds` that must wait because restarts are exhausted and it caused some; undefined when all may run. */
  refused(moduleIds: readonly string[]): string | undefined {
    this.refill();
    if (this.tokens >= 1) return undefined;
    const cutoff = this.now() - this.options.offenderMs;
    for (const [id, at] of this.offenders) if (at < cutoff) this.offenders.delete(id);
    return moduleIds.find((id) => this.offenders.has(id));
  }
}
