/**
 * Idle rest: a sandbox with no calls for `idleMs` lets go of its workers (LanePool.rest), so
 * a process with nothing else to do can exit; the next call takes them back (wake). The
 * timer alone never keeps the process alive.
 */
export interface Restable {
  /** True while calls run or wait: the sandbox is not idle, whatever the clock says. */
  busy(): boolean;
  rest(): void;
  wake(): void;
}

export class IdleRest {
  private resting = false;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  /** When the last call came (performance.now()). */
  private lastCall = 0;

  constructor(private readonly idleMs: number, private readonly target: Restable) {
    this.arm();
  }

  /** A call is coming: take the workers back if they were let go of. */
  touch(): void {
    this.lastCall = performance.now();
    if (this.closed) return;
    if (this.resting) {
      this.resting = false;
      this.target.wake();
    }
    // Whatever becomes of this call (it may be refused or cancelled before it runs), the
    // sandbox looks again later whether it has gone idle.
    this.arm();
  }

  /** Arms the idle check (check() re-arms itself while the sandbox is not idle). */
  arm(): void {
    if (this.closed || this.resting || this.timer) return;
    this.timer = setTimeout(() => this.check(), this.idleMs);
    // The timer alone does not keep the process alive; the lanes do, until it fires.
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private check(): void {
    this.timer = undefined;
    if (this.closed) return;
    const quietFor = performance.now() - this.lastCall;
    if (this.target.busy() || quietFor < this.idleMs) {
      this.timer = setTimeout(() => this.check(), Math.max(1, this.idleMs - Math.max(0, quietFor)));
      this.timer.unref();
      return;
    }
    this.resting = true;
    this.target.rest();
  }
}
