/**
 * The worker's half of a lane (lane.ts): one long-running Piscina task that takes tasks
 * from a MessagePort and answers on it, with a shared word per direction. After a task the
 * worker polls for the next one for a short while before it sleeps in Atomics.wait, so a
 * caller that keeps it busy never pays for waking a sleeping thread (tens of microseconds
 * on a virtual machine, more than a whole guest call). It polls only while its next tasks
 * have been coming within the poll's length: a server's hooks come a network round trip
 * apart (a before hook, the upstream call, the after hooks), and polling there burned half
 * a millisecond of a core per task for nothing.
 */
import { receiveMessageOnPort, threadId } from "node:worker_threads";
import { LANE_BUSY, LANE_DONE, LANE_POSTED, LANE_SLEEPING, LANE_STOP, LANE_THREAD, LANE_CALLER_POLLS, type ServeTask } from "../protocol.js";

export async function serve(task: ServeTask, run: (task: unknown) => unknown): Promise<void> {
  const control = new Int32Array(task.control);
  const port = task.port;
  let taken = 0;
  const gaps = new TaskGaps(task.spinMicros);
  Atomics.store(control, LANE_THREAD, threadId);
  Atomics.notify(control, LANE_THREAD);
  for (;;) {
    const polls = Atomics.load(control, LANE_CALLER_POLLS) === 1 && gaps.nextIsNear();
    if (!awaitPosted(control, taken, polls ? task.spinMicros : 0)) return;
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

/** Polls, then sleeps, until a task is posted beyond `taken`; false when asked to stop. */
function awaitPosted(control: Int32Array, taken: number, spinMicros: number): boolean {
  const spinUntil = performance.now() + spinMicros / 1000;
  for (let i = 0; ; i++) {
    if (Atomics.load(control, LANE_STOP) === 1) return false;
    if (Atomics.load(control, LANE_POSTED) !== taken) return true;
    if ((i & 63) === 0 && performance.now() >= spinUntil) break;
  }
  for (;;) {
    Atomics.store(control, LANE_SLEEPING, 1);
    // Checked again after announcing sleep: a poster that moved LANE_POSTED before it saw
    // LANE_SLEEPING did not notify, and Atomics.wait returns at once when the word differs.
    Atomics.wait(control, LANE_POSTED, taken);
    Atomics.store(control, LANE_SLEEPING, 0);
    if (Atomics.load(control, LANE_STOP) === 1) return false;
    if (Atomics.load(control, LANE_POSTED) !== taken) return true;
  }
}
