/**
 * The rule of every boundary call: it never throws and never rejects; every
 * failure is a result `{ ok: false, error }` with a catalogue code. The entries check what
 * they can name precisely (call-context.ts, the point schemas); this is the net under
 * them. A throw while the call reads its input (a getter that throws, a proxy, a value
 * the host cannot walk) happens before anything began: PAYLOAD_INVALID. A rejection
 * after that is a host bug: INTERNAL_ERROR, with the cause kept in `details` for the
 * service's own logs (never its text in the message, which may hold payload).
 */
import type { SluiceError } from "../errors/sluice-error.js";
import { thrownError } from "../engine/thrown-error.js";
import { refusedCall } from "./call-context.js";
import type { BoundaryResult } from "../engine/call-types.js";

/** Runs one boundary call so that it settles with a result whatever `run` does. */
export function guarded<T>(revision: () => number, run: () => Promise<BoundaryResult<T>>): Promise<BoundaryResult<T>> {
  let pending: Promise<BoundaryResult<T>>;
  try {
    pending = run();
  } catch (err) {
    return Promise.resolve(failedWith<T>(thrownError(err, true), revision));
  }
  return Promise.resolve(pending).catch((err: unknown) => failedWith<T>(thrownError(err, false), revision));
}

function failedWith<T>(error: SluiceError, revision: () => number): BoundaryResult<T> {
  let rev = 0;
  try { rev = revision(); } catch { /* a host that cannot say its revision still answers */ }
  return refusedCall<T>({ ok: false, error: error.toData() }, rev);
}
