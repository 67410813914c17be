/**
 * The worker's half of a lane (lane.ts): one long-running Piscina task that takes tasks
 * from a MessagePort and answers on it, with a shared word per direction. After a task the
 * worker polls for the next one for a short while before it sleeps in Atomics.wait, so a
 * caller that keeps it busy never pays for waking a sleeping thread (tens of microseconds
 * on a virtual machine, more than a whole guest call). It polls only while its next tasks
 * have been coming within the poll's length: a server's hooks come a network round trip
 * apart (a before hook, the upstream call, the after hooks), and polling there burned half
 * a millisecond of a core per task for nothing. There the caller wakes it a little ahead
 * of the task instead (Lane.warm, when an operation opens and when its real call returns).
 */
import { receiveMessageOnPort, threadId } from "node:worker_threads";
import { LANE_BUSY, LANE_DONE, LANE_POSTED, LANE_SLEEPING, LANE_STOP, LANE_THREAD, LANE_CALLER_POLLS, LANE_BELL, type ServeTask } from "../protocol.js";

export async function serve(task: ServeTask, run: (task: unknown) => unknown): Promise<void> {
  const control = new Int32Array(task.control);
  const port = task.port;
  let taken = 0;
  const gaps = new TaskGaps(task.spinMicros);
  Atomics.store(control, LANE_THREAD, threadId);
  Atomics.notify(control, LANE_THREAD);
  for (;;) {
    const polls = Atomics.load(control, LANE_CALLER_POLLS) === 1 && gaps.nextIsNear();
    if (!awaitPosted(control, taken, polls ? task.spinMicros : 0, task.spinMicros)) return;
    gaps.arrived();
    const received = receiveMessageOnPort(port);
    // The poster puts the message on the port before it moves LANE_POSTED, so a missing
    // one means a broken caller: end the lane (the caller replaces it).
    if (!received) return;
    taken++;
    const t0 = performance.now();
    const reply = await run(received.message);
    // The task's own time, before posting: waking a sleeping caller is not the task's cost.
    Atomics.store(control, LANE_BUSY, Math.min(0x7fffffff, Math.round((performance.now() - t0) * 10_000)));
    port.postMessage(reply);
    Atomics.store(control, LANE_DONE, taken);
    Atomics.notify(control, LANE_DONE);
    gaps.answered();
  }
}

/** The time from each answer to the next task, as a moving average (microseconds). */
export class TaskGaps {
  private average = 0;
  private answeredAt = Number.NaN;

  constructor(private readonly pollMicros: number, private readonly now: () => number = () => performance.now()) {}

  answered(): void {
    this.answeredAt = this.now();
  }

  arrived(): void {
    if (Number.isNaN(this.answeredAt)) return;
    // Capped, so one long pause (an idle server) is forgotten after a few quick tasks.
    const gap = Math.min((this.now() - this.answeredAt) * 1000, 4 * this.pollMicros);
    this.average += (gap - this.average) / 4;
  }

  /** Whether the next task is likely to come while polling would still wait for it. */
  nextIsNear(): boolean {
    return this.average <= this.pollMicros;
  }
}

/**
 * Polls for `spinMicros`, then sleeps, until a task is posted beyond `taken`; false when
 * asked to stop. Woken without a task (LANE_BELL rung by a caller that expects one), it
 * polls for up to `warmMicros` before it sleeps again.
 */
function awaitPosted(control: Int32Array, taken: number, spinMicros: number, warmMicros: number): boolean {
  const polled = poll(control, taken, spinMicros);
  if (polled !== undefined) return polled;
  for (;;) {
    const bell = Atomics.load(control, LANE_BELL);
    Atomics.store(control, LANE_SLEEPING, 1);
    // Looked at after announcing sleep: a poster that moved LANE_POSTED before it saw
    // LANE_SLEEPING did not ring; one that rang after the bell was read makes the wait return at once.
    const posted = poll(control, taken, 0);
    if (posted !== undefined) { Atomics.store(control, LANE_SLEEPING, 0); return posted; }
    Atomics.wait(control, LANE_BELL, bell);
    Atomics.store(control, LANE_SLEEPING, 0);
    const warmed = poll(control, taken, warmMicros);
    if (warmed !== undefined) return warmed;
  }
}

/** Polls for up to `micros` (one look for 0): true when a task is posted, false when asked to stop, undefined when the time is up. */
function poll(control: Int32Array, taken: number, micros: number): boolean | undefined {
  const until = micros > 0 ? performance.now() + micros / 1000 : 0;
  for (let i = 0; ; i++) {
    if (Atomics.load(control, LANE_STOP) === 1) return false;
    if (Atomics.load(control, LANE_POSTED) !== taken) return true;
    if ((i & 63) === 0 && (micros <= 0 || performance.now() >= until)) return undefined;
  }
}
