import { mkdtempSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { SluiceError } from "../../errors/sluice-error.js";
import type { RestartBudgetOptions } from "./restart-budget.js";

/** Options of the sandbox: its workers, their life cycle and the hosts' maximum limits. */
export interface SandboxOptions {
  /** Worker threads, all kept warm. Default: the machine's available parallelism. */
  workers?: number;
  /**
   * Tasks that may wait for a worker, beyond the two each working worker holds (the one it
   * runs and the next), before work that would start something (a before stage, a plain
   * call) is refused with QUEUE_FULL. A stage that follows an operation's real call (after,
   * chunk, error, finally) always waits its turn: refusing it cannot undo the call and would
   * cut a stream. Default 1024.
   */
  maxQueue?: number;
  /** Where the key-value capability keeps its data: a SQLite file (created 0600), or the postgres:// URL of a migrated shared database (openPostgresStores), every host sharing its keys. Default: a fresh SQLite file in a fresh 0700 folder of the OS temp dir. */
  kvPath?: string;
  /** Worker restarts allowed (see RestartBudget). Default: a burst of 8 × workers, refilled at 2 × workers per second. */
  restarts?: Partial<RestartBudgetOptions>;
  /**
   * Polling instead of sleeping, in microseconds (0 turns either off). `worker`: how long an
   * idle worker polls for its next task before it sleeps (default 500). `caller`: how long
   * the calling thread polls for a reply when the call is the only one in flight, its
   * operation is the host's only one, and the worker's recent tasks were short enough to
   * finish within it (default 250); it blocks the event loop that long at most.
   */
  spin?: { caller?: number; worker?: number };
  /**
   * Started workers beyond `workers` that take over at once when a worker is terminated
   * (a runaway guest, a crash), while its replacement boots (about 100 ms). Default 1.
   */
  spareWorkers?: number;
  /**
   * How much lower the workers' CPU priority is than the host's own threads, as a nice
   * increment (0 to 19; default 10). When the machine's cores are all busy, the thread that
   * runs the event loop, the guests' watchdog and the API then comes first, and guest code
   * waits: on two cores at full load the event loop's stalls over 2.5 ms fell from 79 to 8 in
   * five seconds. Where every core has room it changes nothing. Applied by Piscina through
   * @napi-rs/nice when each worker starts; Linux only (elsewhere a nice value is not a
   * thread's own, and the option is ignored).
   */
  workerNice?: number;
  /**
   * Milliseconds without any call after which the workers are let go of (they stay
   * started and warm; the next call takes them back in about a millisecond). Until then
   * they keep the process alive. Default 1000.
   */
  idleMs?: number;
  /**
   * Called when a worker thread ends other than by close or rest (a runaway guest's
   * worker terminated, a crash, a failed boot), before its replacement is scheduled: what
   * an operator's log records as a worker restart.
   */
  onWorkerEnded?: (event: WorkerEnded) => void;
}

/** A worker thread that ended while the sandbox was serving. */
export interface WorkerEnded {
  /** Whether it had started serving (false: it died while booting). */
  booted: boolean;
  /** In milliseconds: when its replacement starts booting. */
  replaceInMs: number;
  /** Why the thread ended, as the worker runtime said (an exit code or error message), without guest data. */
  reason: string;
}

export type ResolvedOptions = Required<Omit<SandboxOptions, "restarts" | "spin" | "onWorkerEnded">> & { restarts: RestartBudgetOptions; spin: { caller: number; worker: number }; onWorkerEnded?: (event: WorkerEnded) => void };

export function resolveOptions(o: SandboxOptions): ResolvedOptions {
  const workers = o.workers ?? Math.max(1, availableParallelism());
  if (!Number.isInteger(workers) || workers < 1) throw new SluiceError("CONFIG_INVALID", `workers must be a positive integer, got ${workers}`);
  const maxQueue = o.maxQueue ?? 1024;
  if (!Number.isInteger(maxQueue) || maxQueue < 0) throw new SluiceError("CONFIG_INVALID", `maxQueue must be a non-negative integer, got ${maxQueue}`);
  const restarts = { burst: 8 * workers, perSecond: 2 * workers, offenderMs: 10_000, ...o.restarts };
  if (!(restarts.burst >= 1) || !(restarts.perSecond > 0) || !(restarts.offenderMs >= 0)) throw new SluiceError("CONFIG_INVALID", "restarts.burst must be >= 1, restarts.perSecond > 0 and restarts.offenderMs >= 0");
  const spareWorkers = o.spareWorkers ?? 1;
  if (!Number.isInteger(spareWorkers) || spareWorkers < 0 || spareWorkers > 16) throw new SluiceError("CONFIG_INVALID", `spareWorkers must be an integer from 0 to 16, got ${spareWorkers}`);
  const idleMs = o.idleMs ?? 1_000;
  if (!(idleMs >= 0 && idleMs <= 3_600_000)) throw new SluiceError("CONFIG_INVALID", `idleMs must be 0..3600000, got ${idleMs}`);
  const workerNice = o.workerNice ?? 10;
  if (!Number.isInteger(workerNice) || workerNice < 0 || workerNice > 19) throw new SluiceError("CONFIG_INVALID", `workerNice must be an integer from 0 to 19, got ${workerNice}`);
  const spin = { caller: 250, worker: 500, ...o.spin };
  if (!(spin.caller >= 0 && spin.caller <= 10_000) || !(spin.worker >= 0 && spin.worker <= 100_000)) throw new SluiceError("CONFIG_INVALID", "spin.caller must be 0..10000 and spin.worker 0..100000 microseconds");
  return { workers, maxQueue, restarts, spin, spareWorkers, workerNice, idleMs, kvPath: o.kvPath ?? defaultKvPath(), ...(o.onWorkerEnded ? { onWorkerEnded: o.onWorkerEnded } : {}) };
}

/** A fresh file in a fresh folder of the temp dir; mkdtemp creates the folder 0700, the store creates the file 0600. */
function defaultKvPath(): string {
  return join(mkdtempSync(join(tmpdir(), "sluice-kv-")), "kv.sqlite");
}
