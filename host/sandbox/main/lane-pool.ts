/**
 * The lanes' life cycle: a Piscina pool whose threads each hold one lane (lane.ts). Opens
 * `workers + spareWorkers` lanes, replaces a lane whose worker died (after a pause when a
 * spare has taken over, with a growing back-off when workers die before serving), lets
 * every lane go when the sandbox rests, and picks the lane a task runs on. It knows nothing
 * of tasks or queues: the scheduler asks it for a lane and is told when one is ready.
 */
import { createRequire } from "node:module";
import type { Piscina } from "piscina";
import { Lane } from "./lane.js";
import type { ResolvedOptions } from "./sandbox-options.js";
import { workerFile } from "../worker-file.js";

/** Workers in a row that die before serving, after which waiting calls are failed. */
export const BOOT_FAILURES_REPORTED = 5;

/** How long a spare covers for a terminated worker before its replacement starts booting. */
const REPLACE_AFTER_MS = 250;

/** Tasks a working lane holds at once: the one its worker runs, and the next. */
export const TASKS_PER_LANE = 2;

export interface LanePoolEvents {
  /** A lane started serving. */
  ready(): void;
  /** Workers keep dying before they serve (BOOT_FAILURES_REPORTED in a row). */
  failing(error: Error): void;
}

export class LanePool {
  private readonly pool: Piscina;
  private readonly lanes = new Set<Lane>();
  private readonly replacements = new Set<NodeJS.Timeout>();
  private readyWaiters: (() => void)[] = [];
  /** Workers in a row that died before serving. */
  private bootFailures = 0;
  /** The lanes were let go of (see rest()); none is replaced until wake(). */
  private resting = false;
  private closed = false;

  constructor(private readonly options: ResolvedOptions, private readonly events: LanePoolEvents) {
    // Required when a pool opens, not imported: `import "sluice"` does not load Piscina.
    this.pool = new (createRequire(import.meta.url)("piscina") as typeof import("piscina")).Piscina({
      filename: workerFile("worker/worker-entry", ".cjs"),
      // Threads start for lane tasks (open), so a replacement starts when the pool says.
      minThreads: 0,
      maxThreads: this.full,
      idleTimeout: Number.POSITIVE_INFINITY,
      // Bounds the worker's JS heap only; guest memory is bounded by the module's own maximum.
      // The stack bounds a guest's recursion too (about 33,000 frames of a minimal function at
      // 2 MiB): a stack overflow costs time that grows faster than its depth (unwinding every
      // frame, first touches of fresh stack pages), measured 8-32 ms at 2 MiB against
      // 40-230 ms at 4 MiB on a loaded two-core machine, where 4 MiB ran past the 100 ms
      // default limit and ended in GUEST_TIMEOUT instead of GUEST_STACK_OVERFLOW.
      resourceLimits: { maxOldGenerationSizeMb: 256, stackSizeMb: 2 },
      // Set in each new thread before it loads the worker file, so a replacement's warm-up waits too.
      // Linux only: there a nice value belongs to one thread; macOS would lower the whole
      // process, and Windows takes thread-priority constants instead.
      niceIncrement: process.platform === "linux" ? this.options.workerNice : 0,
    });
    // A worker that dies with no task is replaced by Piscina; the event must not crash the host.
    this.pool.on("error", () => {});
    for (let i = 0; i < this.full; i++) this.open();
  }

  /** The lanes now, live (a dead lane leaves once its worker has gone). */
  [Symbol.iterator](): IterableIterator<Lane> {
    return this.lanes.values();
  }

  /** Lanes the pool keeps: the working ones and the spares. */
  get full(): number {
    return this.options.workers + this.options.spareWorkers;
  }

  /** Workers alive now (the pool replaces terminated ones). */
  get threadCount(): number {
    return this.pool.threads.length;
  }

  get readyCount(): number {
    return [...this.lanes].filter((l) => l.ready && !l.dead).length;
  }

  /** True once workers keep dying before they serve and no lane is serving. */
  get failingToStart(): boolean {
    return this.bootFailures >= BOOT_FAILURES_REPORTED && this.readyCount === 0;
  }

  get failedBoots(): number {
    return this.bootFailures;
  }

  /** Resolves at the next change worth looking at again: a lane ready, a rest, a failure, the close. */
  changed(): Promise<void> {
    return new Promise<void>((resolve) => this.readyWaiters.push(resolve));
  }

  /** Takes the workers back after a rest: opens the lanes that are missing. */
  wake(): void {
    if (this.closed || !this.resting) return;
    this.resting = false;
    const live = [...this.lanes].filter((l) => !l.dead).length;
    for (let i = live; i < this.full; i++) this.open();
  }

  /**
   * Each lane's task holds its Piscina worker and, with it, the process. Resting ends those
   * tasks: the threads stay started and warm in Piscina's pool, unreferenced, so a process
   * with nothing else to do can exit; wake() opens lanes on them again.
   */
  rest(): void {
    this.resting = true;
    // Replacements not yet started are not needed now; wake() opens what is missing.
    for (const timer of this.replacements) clearTimeout(timer);
    this.replacements.clear();
    for (const lane of this.lanes) lane.shutdown();
    // Whoever awaits ready() looks again (and takes the workers back).
    this.wakeWaiters();
  }

  wakeWaiters(): void {
    for (const wake of this.readyWaiters.splice(0)) wake();
  }

  /**
   * Tasks the workers can still take (queued tasks soon go there): the free slots of the
   * working lanes, then those of lanes that are idle or still starting, up to `workers`
   * lanes in all.
   */
  openSlots(): number {
    let open = 0;
    let lanes = 0;
    const live = [...this.lanes].filter((l) => !l.dead);
    for (const l of live) if (l.inFlight > 0) { open += Math.max(0, TASKS_PER_LANE - l.inFlight); lanes++; }
    for (const l of live) if (l.inFlight === 0 && lanes < this.options.workers) { open += TASKS_PER_LANE; lanes++; }
    return open;
  }

  /**
   * A lane to run a task on now. At most `workers` lanes work at once (the spares stand
   * by), each with up to TASKS_PER_LANE tasks so a worker never waits for the main thread to
   * hand it the next one. An idle lane is preferred while fewer than `workers` work, the
   * most recently used first (it is still polling, its caches warm).
   */
  freeLane(idleOnly = false): Lane | undefined {
    let working = 0;
    let idle: Lane | undefined;
    let queued: Lane | undefined;
    for (const lane of this.lanes) {
      if (!lane.ready || lane.dead) continue;
      if (lane.inFlight === 0) {
        if (!idle || lane.lastUsed > idle.lastUsed) idle = lane;
        continue;
      }
      working++;
      if (lane.inFlight < TASKS_PER_LANE && (!queued || lane.inFlight < queued.inFlight)) queued = lane;
    }
    return idle && working < this.options.workers ? idle : idleOnly ? undefined : queued;
  }

  /** Wakes the lane the next task will go to, if it sleeps (Lane.warm). */
  warmNext(): void {
    this.freeLane(true)?.warm();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.replacements) clearTimeout(timer);
    this.wakeWaiters();
    for (const lane of this.lanes) lane.shutdown();
    await this.pool.destroy();
  }

  private open(): void {
    const lane = new Lane(this.pool, this.options.spin.worker, {
      ready: () => {
        this.bootFailures = 0;
        this.wakeWaiters();
        this.events.ready();
      },
      ended: (l, error) => {
        this.lanes.delete(l);
        if (this.closed || l.retired) return;
        // A worker that never started serving: back off, and after a few in a row tell the
        // callers waiting for one instead of letting them wait forever.
        if (!l.ready && ++this.bootFailures >= BOOT_FAILURES_REPORTED) {
          this.events.failing(error);
          this.wakeWaiters();
        }
        const delay = !l.ready ? Math.min(5_000, 100 * 2 ** this.bootFailures)
          // A spare has taken over. The replacement's boot (about 100 ms of CPU) starts after
          // a pause, not while the pool catches up with the calls the dead worker delayed.
          : this.options.spareWorkers > 0 ? REPLACE_AFTER_MS : 0;
        try {
          this.options.onWorkerEnded?.({ booted: l.ready, replaceInMs: delay, reason: reasonOf(error) });
        } catch (err) {
          process.emitWarning(`an onWorkerEnded listener threw: ${(err as Error)?.message ?? String(err)}`);
        }
        const timer: NodeJS.Timeout = setTimeout(() => {
          this.replacements.delete(timer);
          if (!this.closed && !this.resting) this.open();
        }, delay);
        this.replacements.add(timer);
      },
    });
    this.lanes.add(lane);
  }
}

/** What ended a worker, short: the code of a terminated thread or the error's name and message. */
function reasonOf(error: unknown): string {
  if (error === undefined || error === null) return "terminated";
  if (typeof error === "number") return `exit code ${error}`;
  const e = error as { name?: string; message?: string };
  return `${e.name ?? "Error"}: ${String(e.message ?? error).slice(0, 200)}`;
}
