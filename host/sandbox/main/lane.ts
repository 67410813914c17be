/**
 * A lane: one Piscina worker held by one long-running task (serve.ts), fed through its own
 * MessagePort with a shared word per direction. Piscina still starts, replaces and
 * terminates the threads; the lane removes the two thread wake-ups of a Piscina task
 * round trip. The worker polls for its next task briefly before sleeping, and a caller
 * with nothing else to do polls for a short reply instead of waiting for the event loop
 * to be woken (see Sandbox's `spin` option).
 */
import { MessageChannel, receiveMessageOnPort, type MessagePort } from "node:worker_threads";
import type { Piscina } from "piscina";
import { LANE_BUSY, LANE_BYTES, LANE_CALLER_POLLS, LANE_DONE, LANE_POSTED, LANE_SLEEPING, LANE_STOP, LANE_THREAD, LANE_BELL, type ServeTask } from "../protocol.js";

// Node 20 has Atomics.waitAsync; TypeScript declares it only from lib ES2024 on, which
// would also admit APIs Node 20 lacks (Promise.withResolvers, Object.groupBy).
const waitAsync = (Atomics as unknown as { waitAsync(a: Int32Array, i: number, v: number): { async: boolean; value: Promise<string> | string } }).waitAsync;

export class Lane {
  /** Module ids this lane's worker has been sent. */
  readonly modules = new Set<string>();
  ready = false;
  dead = false;
  /** When the lane last took a task (the most recently used idle lane is still polling). */
  lastUsed = 0;
  private readonly control = new Int32Array(new SharedArrayBuffer(LANE_BYTES));
  private readonly port: MessagePort;
  private readonly stop = new AbortController();
  private posted = 0;
  /** Replies awaited, in posting order (the worker answers in order). */
  private readonly pending: { resolve: (reply: unknown) => void; reject: (err: Error) => void }[] = [];
  /** Tasks posted and not answered, including one being polled for. */
  inFlight = 0;

  constructor(pool: Piscina, workerSpinMicros: number, events: { ready(lane: Lane): void; ended(lane: Lane, error: Error): void }) {
    const { port1, port2 } = new MessageChannel();
    this.port = port2;
    port2.on("message", (reply) => this.settle(reply));
    port2.unref();
    const task: ServeTask = { kind: "serve", port: port1, control: this.control.buffer as SharedArrayBuffer, spinMicros: workerSpinMicros };
    const end = (err: unknown): void => {
      this.dead = true;
      // Replies the worker posted before it died still answer their tasks: it posts each
      // reply before it takes the next task, so a task that finished is never lost.
      for (let m = receiveMessageOnPort(this.port); m && this.pending.length > 0; m = this.pending.length > 0 ? receiveMessageOnPort(this.port) : undefined) this.settle(m.message);
      this.port.close();
      const error = err instanceof Error ? err : new Error(String(err));
      for (const p of this.pending.splice(0)) p.reject(error);
      // A worker that died before serving leaves no thread id: release the wait for it.
      Atomics.store(this.control, LANE_THREAD, -1);
      Atomics.notify(this.control, LANE_THREAD);
      events.ended(this, error);
    };
    pool.run(task, { signal: this.stop.signal, transferList: [port1] as never }).then(() => end(new Error("the worker left its lane")), end);
    const started = waitAsync(this.control, LANE_THREAD, 0);
    void Promise.resolve(started.value).then(() => {
      if (this.dead) return;
      this.ready = true;
      events.ready(this);
    });
  }

  /** The serving worker's threadId (0 until it serves). */
  get threadId(): number {
    return Atomics.load(this.control, LANE_THREAD);
  }

  /** The worker's own time on its last task, in microseconds. */
  get lastBusyMicros(): number {
    return Atomics.load(this.control, LANE_BUSY) / 10;
  }

  /**
   * Sends a task; the reply comes back, or the lane's end as a rejection. Tasks queue in
   * the worker behind the one it runs. With `spinMicros` > 0 and no other task on the
   * lane, the caller polls that long for the reply before it yields.
   */
  post(task: unknown, spinMicros: number): Promise<unknown> {
    if (this.dead) return Promise.reject(new Error("the lane's worker is gone"));
    this.port.ref();
    this.inFlight++;
    this.lastUsed = performance.now();
    const seq = ++this.posted;
    const polls = spinMicros > 0 && this.inFlight === 1;
    Atomics.store(this.control, LANE_CALLER_POLLS, polls ? 1 : 0);
    this.port.postMessage(task);
    Atomics.store(this.control, LANE_POSTED, seq);
    if (Atomics.load(this.control, LANE_SLEEPING) === 1) this.ring();
    if (polls) {
      const until = performance.now() + spinMicros / 1000;
      do {
        if (Atomics.load(this.control, LANE_DONE) === seq) {
          const reply = receiveMessageOnPort(this.port);
          if (reply) {
            this.answered();
            return Promise.resolve(reply.message);
          }
        }
      } while (performance.now() < until);
    }
    return new Promise((resolve, reject) => { this.pending.push({ resolve, reject }); });
  }

  /**
   * A task is coming soon (the caller knows one will, a few hundred microseconds ahead):
   * a sleeping worker is woken now and polls for it, so the task does not pay for the wake.
   */
  warm(): void {
    if (!this.dead && this.inFlight === 0 && Atomics.load(this.control, LANE_SLEEPING) === 1) this.ring();
  }

  /** Wakes the worker if it sleeps, or makes its next wait return at once (LANE_BELL). */
  private ring(): void {
    Atomics.add(this.control, LANE_BELL, 1);
    Atomics.notify(this.control, LANE_BELL);
  }

  /** Terminates the worker (Piscina replaces the thread; the sandbox replaces the lane). */
  kill(): void {
    // No new task goes to a lane on its way out.
    this.dead = true;
    this.stop.abort();
  }

  /** Set by shutdown(): the lane is leaving on purpose, and nothing replaces it. */
  retired = false;

  /** Asks the serve loop to return (a clean shutdown, or an idle sandbox letting go of its workers). */
  shutdown(): void {
    this.retired = true;
    this.dead = true;
    Atomics.store(this.control, LANE_STOP, 1);
    this.ring();
  }

  private settle(reply: unknown): void {
    const pending = this.pending.shift();
    this.answered();
    pending?.resolve(reply);
  }

  private answered(): void {
    if (--this.inFlight === 0) this.port.unref();
  }
}
